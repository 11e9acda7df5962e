/**
 * The toasts themselves (sonner): a chunk of their own, loaded after the first screen is
 * drawn (toaster.tsx), so no first screen waits for code it shows only on an event.
 */
import { Toaster as Sonner, toast } from 'sonner';
import { useTheme } from '@/lib/theme';

export default function SonnerToaster() {
  const { theme } = useTheme();
  return (
    <Sonner
      theme={theme}
      position="top-center"
      closeButton
      toastOptions={{
        classNames: {
          toast: 'rounded-xl border border-border bg-background text-foreground shadow-lg',
          title: 'font-semibold',
          description: 'text-muted-foreground',
        },
      }}
    />
  );
}

export function showSuccess(title: string, description?: string): void {
  toast.success(title, description ? { description } : undefined);
}

export function showError(title: string, description?: string): void {
  toast.error(title, {
    description,
    classNames: {
      toast: '!bg-destructive !text-destructive-foreground !border-destructive',
      // Full strength: at 90% it is 4.1:1 on the light theme's red, under WCAG AA.
      description: '!text-destructive-foreground',
      icon: '!text-destructive-foreground',
    },
  });
}

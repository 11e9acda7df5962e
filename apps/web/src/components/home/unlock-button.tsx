import type { ComponentProps } from 'react';
import { Button } from '@/components/ui/button';

/** The keys banner's button: the dialog's trigger, and its stand-in while the dialog loads. */
export function UnlockButton({ label, ...props }: ComponentProps<typeof Button> & { label: string }) {
  return (
    <Button size="sm" variant="outline" className="ml-7 sm:ml-0" {...props}>
      {label}
    </Button>
  );
}

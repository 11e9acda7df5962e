import { MessageCircle } from 'lucide-react';
import { cn } from '@/lib/utils';

/** The product mark: a speech bubble on a rounded tile. Decorative; pair it with the product name. */
export function AppLogo({ className, onGradient = false }: { className?: string; onGradient?: boolean }) {
  return (
    <div
      aria-hidden
      className={cn(
        'flex size-16 items-center justify-center rounded-2xl shadow-lg',
        onGradient ? 'bg-white/15 text-white ring-1 ring-white/30 backdrop-blur' : 'brand-gradient text-white',
        className,
      )}
    >
      <MessageCircle className="size-1/2" strokeWidth={2.25} />
    </div>
  );
}

import { BadgeCheck } from 'lucide-react';
import { cn } from '@/lib/utils';

/** The verified badge next to a handle (set by the administrator). */
export function VerifiedBadge({ className }: { className?: string }) {
  return (
    <span role="img" aria-label="Verified" title="Verified" className={cn('inline-flex shrink-0', className)}>
      <BadgeCheck className="size-4 text-sky-500 dark:text-sky-400" aria-hidden />
    </span>
  );
}

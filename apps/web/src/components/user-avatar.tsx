import { isSafeHttpUrl } from '@app/protocol';
import { useState } from 'react';
import { cn } from '@/lib/utils';

const SIZES = {
  sm: 'size-9 text-sm',
  md: 'size-12 text-lg',
  lg: 'size-16 text-2xl',
  xl: 'size-24 text-4xl',
} as const;

/** A round avatar: the picture when there is a usable one, otherwise the first letter of the name. */
export function UserAvatar({
  name,
  src,
  size = 'md',
  className,
}: {
  /** The name (or handle) whose initial is shown. */
  name: string;
  src?: string | null;
  size?: keyof typeof SIZES;
  className?: string;
}) {
  const [failed, setFailed] = useState<string | null>(null);
  const initial = name.trim().charAt(0).toUpperCase() || '?';
  const showPicture = Boolean(src) && src !== failed && isSafeHttpUrl(src ?? '');
  return (
    <span
      aria-hidden
      className={cn(
        'relative inline-flex shrink-0 select-none items-center justify-center overflow-hidden rounded-full bg-secondary font-semibold text-secondary-foreground',
        SIZES[size],
        className,
      )}
    >
      {showPicture ? (
        <img
          src={src ?? undefined}
          alt=""
          className="size-full object-cover"
          referrerPolicy="no-referrer"
          onError={() => setFailed(src ?? null)}
        />
      ) : (
        initial
      )}
    </span>
  );
}

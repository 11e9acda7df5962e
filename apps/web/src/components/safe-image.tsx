import { isSafeHttpUrl } from '@app/protocol';
import { useState } from 'react';
import { cn } from '@/lib/utils';

/**
 * An image from a user- or admin-supplied URL: shown only for http(s) URLs, sent
 * without a referrer, loaded lazily, and hidden (not a broken-image icon) if it fails.
 */
export function SafeImage({
  src,
  alt,
  className,
}: {
  src: string | null | undefined;
  alt: string;
  className?: string;
}) {
  const [failed, setFailed] = useState<string | null>(null);
  if (!src || !isSafeHttpUrl(src) || failed === src) return null;
  return (
    <img
      src={src}
      alt={alt}
      loading="lazy"
      decoding="async"
      referrerPolicy="no-referrer"
      className={cn('block h-auto max-h-80 max-w-full rounded-lg border border-border object-contain', className)}
      onError={() => setFailed(src)}
    />
  );
}

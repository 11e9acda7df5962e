import { isSafeHttpUrl, videoEmbedUrl } from '@app/protocol';
import { ExternalLink } from 'lucide-react';
import { cn } from '@/lib/utils';

/**
 * A YouTube or Vimeo video in a 16:9 box, through the official embed URL only (the
 * given URL is parsed, never put in the frame). Any other http(s) URL is a plain link;
 * anything else shows nothing.
 */
export function VideoEmbed({
  url,
  title = 'Video',
  className,
}: {
  url: string | null | undefined;
  title?: string;
  className?: string;
}) {
  if (!url) return null;
  const embed = videoEmbedUrl(url);
  if (embed) {
    return (
      <div className={cn('aspect-video w-full overflow-hidden rounded-lg border border-border bg-black', className)}>
        <iframe
          src={embed}
          title={title}
          className="size-full border-0"
          sandbox="allow-scripts allow-same-origin allow-presentation"
          allow="encrypted-media; picture-in-picture; fullscreen"
          referrerPolicy="strict-origin-when-cross-origin"
          loading="lazy"
        />
      </div>
    );
  }
  if (!isSafeHttpUrl(url)) return null;
  return (
    <a
      href={url}
      target="_blank"
      rel="noopener noreferrer nofollow"
      referrerPolicy="no-referrer"
      className={cn(
        'inline-flex max-w-full items-center gap-1.5 text-sm font-medium text-primary underline-offset-4 hover:underline',
        className,
      )}
    >
      <ExternalLink className="size-4 shrink-0" aria-hidden />
      <span className="min-w-0 truncate">{url}</span>
    </a>
  );
}

import type { NotificationItem as Item } from '@app/protocol';
import { Info, Loader2, Megaphone, UserPlus } from 'lucide-react';
import type * as React from 'react';
import { useId } from 'react';
import { shownText } from '@/client/crypto/message-crypto';
import { useRequestText } from '@/hooks/chat-hooks';
import { formatDateTime } from '@/lib/format-time';
import { TINT } from '@/lib/tints';
import { cn } from '@/lib/utils';
import { SafeImage } from './safe-image';
import { Button } from './ui/button';
import { VideoEmbed } from './video-embed';

type RequestItem = Extract<Item, { type: 'request' }>;

/** What a request item is doing: nothing, or waiting for the server to accept/decline. */
export type RespondState = 'idle' | 'accepting' | 'declining';

/**
 * One entry of /notifications: a contact request (with Accept and Decline), an
 * administrator's broadcast (with its image and video), or a plain message. Every
 * text is rendered as text.
 */
export function NotificationItem({
  item,
  highlight,
  respond = 'idle',
  onRespond,
}: {
  item: Item;
  /** New since the user last looked: a subtle highlight. */
  highlight: boolean;
  respond?: RespondState;
  onRespond?: (item: RequestItem, accept: boolean) => void;
}) {
  const labelId = useId();
  return (
    <article
      aria-labelledby={labelId}
      className={cn(
        'flex gap-3 rounded-xl border p-3 sm:p-4',
        highlight ? 'border-primary/20 bg-secondary/40' : 'border-border bg-background',
      )}
    >
      <ItemIcon type={item.type} />
      <div className="min-w-0 flex-1 space-y-2">
        <header className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-0.5">
          {item.type === 'info' ? (
            // Other items are just their message.
            <Message id={labelId} className="min-w-0 flex-1 basis-48">
              {item.message}
              {highlight ? <span className="sr-only"> (new)</span> : null}
            </Message>
          ) : (
            <h2 id={labelId} className="min-w-0 font-semibold [overflow-wrap:anywhere]">
              {item.type === 'request' ? (
                <>
                  @{item.fromUsername}
                  <span className="sr-only"> sent you a message request</span>
                </>
              ) : (
                'Admin Notification'
              )}
              {highlight ? <span className="sr-only"> (new)</span> : null}
            </h2>
          )}
          <span className="flex shrink-0 items-center gap-1.5 text-xs text-muted-foreground">
            {highlight ? <span className="size-2 rounded-full bg-primary" aria-hidden /> : null}
            <time dateTime={new Date(item.timestamp).toISOString()}>{formatDateTime(item.timestamp)}</time>
          </span>
        </header>

        {item.type === 'request' ? (
          <>
            <p className="text-xs font-medium uppercase tracking-wide text-muted-foreground" aria-hidden>
              Message request
            </p>
            <Message className="rounded-lg bg-muted px-3 py-2">
              <RequestText item={item} />
            </Message>
            <div className="flex flex-wrap gap-2 pt-1">
              <Button
                size="sm"
                className="min-w-24"
                disabled={respond !== 'idle'}
                onClick={() => onRespond?.(item, true)}
              >
                {respond === 'accepting' ? <Loader2 className="animate-spin" aria-hidden /> : null}
                Accept
              </Button>
              <Button
                size="sm"
                variant="outline"
                className="min-w-24"
                disabled={respond !== 'idle'}
                onClick={() => onRespond?.(item, false)}
              >
                {respond === 'declining' ? <Loader2 className="animate-spin" aria-hidden /> : null}
                Decline
              </Button>
            </div>
          </>
        ) : item.type === 'admin' ? (
          <>
            <Message>{item.message}</Message>
            <SafeImage src={item.imageUrl} alt="Image attached to the notification" />
            <VideoEmbed url={item.videoUrl} title="Video attached to the notification" />
          </>
        ) : null}
      </div>
    </article>
  );
}

function Message({ children, className, id }: { children: React.ReactNode; className?: string; id?: string }) {
  return (
    <p id={id} className={cn('whitespace-pre-wrap text-sm [overflow-wrap:anywhere]', className)}>
      {children}
    </p>
  );
}

const ICONS = {
  request: { Icon: UserPlus, className: 'bg-secondary text-primary' },
  admin: { Icon: Megaphone, className: TINT.amber },
  info: { Icon: Info, className: 'bg-muted text-muted-foreground' },
} as const;

function ItemIcon({ type }: { type: Item['type'] }) {
  const { Icon, className } = ICONS[type];
  return (
    <span className={cn('flex size-9 shrink-0 items-center justify-center rounded-full', className)}>
      <Icon className="size-4" aria-hidden />
    </span>
  );
}

/** A request's first message, opened in this tab. */
function RequestText({ item }: { item: RequestItem }) {
  return <>{shownText(useRequestText(item, item.fromId, false))}</>;
}

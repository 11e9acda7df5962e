import { BUBBLE_MAX_WIDTH } from '@app/protocol';
import { CircleAlert, LockOpen, MoreVertical } from 'lucide-react';
import type * as React from 'react';
import { memo, useRef } from 'react';
import type { UiMessage } from '@/client/conversations/conversation';
import { isNotice, shownText } from '@/client/crypto/message-crypto';
import { useShown } from '@/hooks/chat-hooks';
import { useLongPress } from '@/hooks/use-long-press';
import { emojiOnlyCount } from '@/lib/emoji-only';
import { formatClock, formatDateTime } from '@/lib/format-time';
import { cn } from '@/lib/utils';
import { LinkedText } from './chat/linked-text';
import { MessageTicks } from './message-ticks';
import { anchorOf, type MenuAnchor } from './ui/action-menu';

/** Where a long press opens the menu: under the bubble (or above it), at its outer edge, not under the finger. */
function besideBubble(el: HTMLElement, own: boolean): Omit<MenuAnchor, 'returnFocus'> {
  const r = el.getBoundingClientRect();
  return { x: own ? r.right : r.left, y: r.bottom + 4, top: r.top + 4, align: own ? 'end' : 'start' };
}

/** The text size of a message of 1, 2 or 3 emoji alone. */
const LARGE_EMOJI_SIZE: Record<number, string> = {
  1: 'text-5xl leading-tight',
  2: 'text-4xl leading-tight',
  3: 'text-3xl leading-tight',
};
/**
 * One message: own ones on the right, the peer's on the left, each with its time;
 * own ones with ticks. A button (and a right-click) opens the message menu, except
 * on deleted messages. On a touch screen a long press on the bubble opens it, and the
 * button is not shown beside every bubble: it stays for screen readers, and appears
 * when a keyboard focuses it. An own message that failed has no ticks but a red "Not sent"
 * under it (the reason as its description and tooltip), which opens the menu too
 * (Retry, Delete). In a group of one sender's messages (conversation-rows.ts) they sit
 * closer, and only the last has the tail. The options button is named after its message:
 * 'Options for message from @bob, 3:04 PM'.
 */
export const MessageBubble = memo(function MessageBubble({
  message,
  own,
  sender,
  first = true,
  last = true,
  onMenu,
}: {
  message: UiMessage;
  own: boolean;
  /** Who sent it, as said to screen readers: '@bob', or 'you'. */
  sender: string;
  /** The first of its group (more space above it). */
  first?: boolean;
  /** The last of its group (the tail). */
  last?: boolean;
  onMenu: (message: UiMessage, anchor: MenuAnchor) => void;
}) {
  const { deleted } = message;
  const shown = useShown(message);
  // Deleted, or not verifiable: said in muted italics, with no menu on a deleted one.
  const muted = deleted || isNotice(shown);
  // One to three emoji alone: shown large, the fewer the larger.
  const large = muted ? 0 : emojiOnlyCount(shownText(shown));
  const openAtPointer = (e: React.MouseEvent<HTMLElement>) => {
    if (deleted) return;
    e.preventDefault();
    onMenu(message, { x: e.clientX, y: e.clientY, returnFocus: null });
  };
  const optionsRef = useRef<HTMLButtonElement>(null);
  const bubbleRef = useRef<HTMLDivElement>(null);
  const press = useLongPress((at) => {
    if (deleted) return;
    onMenu(message, {
      ...(bubbleRef.current ? besideBubble(bubbleRef.current, own) : at),
      returnFocus: optionsRef.current,
    });
  }, openAtPointer);

  const optionsButton = deleted ? null : (
    <button
      ref={optionsRef}
      type="button"
      aria-label={`Options for message from ${sender}, ${formatClock(message.timestamp)}`}
      aria-haspopup="menu"
      onClick={(e) => onMenu(message, anchorOf(e.currentTarget))}
      className="flex size-7 shrink-0 cursor-pointer items-center justify-center rounded-full text-muted-foreground opacity-0 transition-opacity hover:bg-background hover:text-foreground focus-visible:opacity-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring group-hover:opacity-100 pointer-coarse:sr-only pointer-coarse:focus-visible:not-sr-only pointer-coarse:focus-visible:size-11"
    >
      <MoreVertical className="size-4" aria-hidden />
    </button>
  );

  const failed = own ? message.failed : undefined;

  const bubble = (
    // A long press and a right-click are shortcuts; the options button is the accessible way to the menu.
    <div
      ref={bubbleRef}
      {...press}
      style={{ maxWidth: BUBBLE_MAX_WIDTH }}
      className={cn(
        'flex min-w-0 flex-wrap items-end justify-end gap-x-2 rounded-2xl px-3 py-1.5 text-[15px] leading-snug shadow-sm',
        // A long press opens the menu (its Copy included): no text selection or callout of the browser's.
        'pointer-coarse:select-none pointer-coarse:[-webkit-touch-callout:none]',
        own ? 'bg-bubble-own text-bubble-own-foreground' : 'bg-bubble-peer text-foreground',
        last && (own ? 'rounded-br-sm' : 'rounded-bl-sm'),
        message.pending && failed === undefined && 'opacity-80',
      )}
      data-message-id={message.id}
    >
      <p
        className={cn(
          'min-w-0 flex-auto whitespace-pre-wrap [overflow-wrap:anywhere]',
          // Quieter, and still 4.5:1 against the bubble (an own bubble's text faded to 60% was 3.3:1).
          muted && (own ? 'italic text-bubble-own-foreground/85' : 'italic text-muted-foreground'),
          large > 0 && LARGE_EMOJI_SIZE[large],
        )}
      >
        {muted ? shownText(shown) : <LinkedText text={shownText(shown)} own={own} />}
      </p>
      <span
        className={cn(
          'ml-auto flex shrink-0 translate-y-0.5 items-center gap-1 text-[11px] leading-none',
          own ? 'text-bubble-own-foreground/85' : 'text-muted-foreground',
        )}
      >
        {shown?.kind === 'text' && shown.clear ? (
          // Stored in the clear, from before end-to-end encryption (client/crypto/message-crypto.ts clear()).
          <span className="flex items-center gap-0.5" title="Sent before end-to-end encryption: stored in the clear">
            <LockOpen className="size-3" aria-hidden />
            Not encrypted
          </span>
        ) : null}
        {message.edited && !deleted ? <span className="italic">edited</span> : null}
        {/* aria-hidden: the list item says the sender and the time first. */}
        <time
          aria-hidden
          dateTime={new Date(message.timestamp).toISOString()}
          title={formatDateTime(message.timestamp)}
        >
          {formatClock(message.timestamp)}
        </time>
        {own && !deleted && failed === undefined ? <MessageTicks message={message} /> : null}
      </span>
    </div>
  );

  const row = (
    <div
      className={cn(
        'group flex items-center gap-1 px-3 pb-px',
        first ? 'pt-1.5' : 'pt-px',
        own ? 'justify-end' : 'justify-start',
      )}
    >
      {own ? optionsButton : null}
      {bubble}
      {own ? null : optionsButton}
    </div>
  );
  if (failed === undefined) return row;
  // A line under the bubble, at its end: what failed, and the way to its menu (Retry, Delete).
  return (
    <>
      {row}
      <div className="flex justify-end px-3 pb-0.5">
        <button
          type="button"
          aria-haspopup="menu"
          aria-description={failed}
          title={failed}
          onClick={(e) => onMenu(message, anchorOf(e.currentTarget))}
          className="flex cursor-pointer items-center gap-1 rounded-full px-1.5 py-0.5 text-xs pointer-coarse:min-h-11 font-medium text-destructive hover:bg-destructive/10 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
        >
          <CircleAlert className="size-3.5" strokeWidth={2.5} aria-hidden />
          Not sent
        </button>
      </div>
    </>
  );
});

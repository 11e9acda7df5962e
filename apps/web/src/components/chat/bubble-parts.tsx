/** Parts of a message bubble (message-bubble.tsx): its "Forwarded" line, its corner of marks and time, the buttons beside it. */
import { CircleAlert, Forward, LockOpen, MoreVertical, Reply, SmilePlus } from 'lucide-react';
import type * as React from 'react';
import type { UiMessage } from '@/client/conversations/conversation';
import { formatClock, formatDateTime } from '@/lib/format-time';
import { cn } from '@/lib/utils';
import { MessageTicks } from '../message-ticks';

/** "Forwarded", above the text of a message forwarded from another chat (sealed with it). */
export function ForwardedLine({ own }: { own: boolean }) {
  return (
    <p
      className={cn(
        'flex basis-full items-center gap-1 text-xs italic',
        own ? 'text-bubble-own-foreground/85' : 'text-muted-foreground',
      )}
    >
      <Forward className="size-3.5" aria-hidden />
      Forwarded
    </p>
  );
}

/**
 * The bubble's corner: "Not encrypted" for a text from before end-to-end encryption,
 * "edited", the time, and an own message's ticks (none on a deleted or failed one).
 */
export function BubbleMeta({
  message,
  own,
  clear,
  failed,
}: {
  message: UiMessage;
  own: boolean;
  clear: boolean;
  failed: boolean;
}) {
  const { deleted } = message;
  return (
    <span
      className={cn(
        'ml-auto flex shrink-0 translate-y-0.5 items-center gap-1 text-[11px] leading-none',
        own ? 'text-bubble-own-foreground/85' : 'text-muted-foreground',
      )}
    >
      {clear ? (
        // Stored in the clear, from before end-to-end encryption (client/crypto/message-crypto.ts clear()).
        <span className="flex items-center gap-0.5" title="Sent before end-to-end encryption: stored in the clear">
          <LockOpen className="size-3" aria-hidden />
          Not encrypted
        </span>
      ) : null}
      {message.edited && !deleted ? <span className="italic">edited</span> : null}
      {/* aria-hidden: the list item says the sender and the time first. */}
      <time aria-hidden dateTime={new Date(message.timestamp).toISOString()} title={formatDateTime(message.timestamp)}>
        {formatClock(message.timestamp)}
      </time>
      {own && !deleted && !failed ? <MessageTicks message={message} /> : null}
    </span>
  );
}

/**
 * Beside a bubble, shown on hover (or keyboard focus) with a mouse: React (the picker) or
 * Reply. Touch screens use the message menu instead.
 */
export function HoverButton({
  kind,
  label,
  onPress,
}: {
  kind: 'react' | 'reply';
  label: string;
  onPress(e: React.MouseEvent<HTMLButtonElement>): void;
}) {
  const Icon = kind === 'react' ? SmilePlus : Reply;
  return (
    <button
      type="button"
      aria-label={label}
      aria-haspopup={kind === 'react' ? 'dialog' : undefined}
      onClick={onPress}
      className="flex size-7 shrink-0 cursor-pointer items-center justify-center rounded-full text-muted-foreground opacity-0 transition-opacity hover:bg-background hover:text-foreground focus-visible:opacity-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring group-hover:opacity-100 pointer-coarse:hidden"
    >
      <Icon className="size-4" aria-hidden />
    </button>
  );
}

/** Under an own message that failed: "Not sent" (the reason as its description and tooltip), opening its menu (Retry, Delete). */
export function NotSentLine({
  reason,
  onOpen,
}: {
  reason: string;
  onOpen(e: React.MouseEvent<HTMLButtonElement>): void;
}) {
  return (
    <div className="flex justify-end px-3 pb-0.5">
      <button
        type="button"
        aria-haspopup="menu"
        aria-description={reason}
        title={reason}
        onClick={onOpen}
        className="flex cursor-pointer items-center gap-1 rounded-full px-1.5 py-0.5 text-xs pointer-coarse:min-h-11 font-medium text-destructive hover:bg-destructive/10 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
      >
        <CircleAlert className="size-3.5" strokeWidth={2.5} aria-hidden />
        Not sent
      </button>
    </div>
  );
}

/**
 * Beside a bubble: opens the message menu. With a mouse it shows on hover; on a touch
 * screen a long press opens the menu, and the button stays for screen readers, shown when
 * a keyboard focuses it.
 */
export function OptionsButton({
  ref,
  label,
  onOpen,
}: {
  ref: React.Ref<HTMLButtonElement>;
  label: string;
  onOpen(e: React.MouseEvent<HTMLButtonElement>): void;
}) {
  return (
    <button
      ref={ref}
      type="button"
      aria-label={label}
      aria-haspopup="menu"
      onClick={onOpen}
      className="flex size-7 shrink-0 cursor-pointer items-center justify-center rounded-full text-muted-foreground opacity-0 transition-opacity hover:bg-background hover:text-foreground focus-visible:opacity-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring group-hover:opacity-100 pointer-coarse:sr-only pointer-coarse:focus-visible:not-sr-only pointer-coarse:focus-visible:size-11"
    >
      <MoreVertical className="size-4" aria-hidden />
    </button>
  );
}

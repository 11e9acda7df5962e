import { BUBBLE_MAX_WIDTH } from '@app/protocol';
import type * as React from 'react';
import { memo, useRef } from 'react';
import type { UiMessage } from '@/client/conversations/conversation';
import { isNotice, type Shown, shownText } from '@/client/crypto/message-crypto';
import { useShown } from '@/hooks/chat-hooks';
import { useLongPress } from '@/hooks/use-long-press';
import { photoAlt } from '@/lib/attachment-label';
import { emojiOnlyCount } from '@/lib/emoji-only';
import { formatClock } from '@/lib/format-time';
import { cn } from '@/lib/utils';
import { AttachmentView } from './attachments/attachment-view';
import { BubbleMeta, ForwardedLine, HoverButton, NotSentLine, OptionsButton } from './chat/bubble-parts';
import { LinkedText } from './chat/linked-text';
import { ReactionChips } from './chat/reaction-chips';
import { ReplyQuote } from './chat/reply-quote';
import { anchorOf, type MenuAnchor } from './ui/action-menu';

/** Where a long press opens the menu: under the bubble (or above it), at its outer edge, not under the finger. */
function besideBubble(el: HTMLElement, own: boolean): Omit<MenuAnchor, 'returnFocus'> {
  const r = el.getBoundingClientRect();
  return { x: own ? r.right : r.left, y: r.bottom + 4, top: r.top + 4, align: own ? 'end' : 'start' };
}

/** One to three emoji alone are shown large, the fewer the larger. */
const LARGE_EMOJI_SIZE: Record<number, string> = {
  1: 'font-emoji text-5xl leading-tight',
  2: 'font-emoji text-4xl leading-tight',
  3: 'font-emoji text-3xl leading-tight',
};

/** The words of a bubble: its text with links, or (muted) why there is none. */
function BubbleText({ shown, muted, own }: { shown: Shown | null; muted: boolean; own: boolean }) {
  const large = muted ? 0 : emojiOnlyCount(shownText(shown));
  return (
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
  );
}

/** Inside the bubble: the forwarded mark, the reply's quote, the attachment, and the text (or caption). */
function BubbleContent(props: {
  message: UiMessage;
  shown: Shown | null;
  /** The open text, if it is one. */
  text: Extract<Shown, { kind: 'text' }> | null;
  muted: boolean;
  own: boolean;
  sender: string;
}) {
  const { text, own } = props;
  const attachment = text?.attachments?.[0];
  const caption = text?.text.trim() ?? '';
  return (
    <>
      {text?.forwarded ? <ForwardedLine own={own} /> : null}
      {text?.reply ? <ReplyQuote reply={text.reply} own={own} /> : null}
      {attachment ? (
        <AttachmentView
          attachment={attachment}
          msgId={props.message.id}
          own={own}
          alt={photoAlt(caption, props.sender)}
          {...(props.message.uploading !== undefined ? { uploading: props.message.uploading } : {})}
        />
      ) : null}
      {attachment && !caption ? null : <BubbleText shown={props.shown} muted={props.muted} own={own} />}
    </>
  );
}

/**
 * One message: own ones on the right, the peer's on the left, each with its time;
 * own ones with ticks. A button (and a right-click) opens the message menu, except
 * on deleted messages. On a touch screen a long press on the bubble opens it, and the
 * button is not shown beside every bubble: it stays for screen readers, and appears
 * when a keyboard focuses it. An own message that failed has no ticks but a red "Not sent"
 * under it (the reason as its description and tooltip), which opens the menu too
 * (Retry, Delete). In a group of one sender's messages (conversation-rows.ts) they sit
 * closer, and only the last has the tail. The options button is named after its message:
 * 'Options for message from @bob, 3:04 PM'. A forwarded message says so above its text, and
 * a reply shows its quote (chat/reply-quote.tsx); with a mouse, a Reply button shows beside
 * the options button on hover, as WhatsApp Web's does. A photo or file shows above its
 * caption (attachments/attachment-view.tsx).
 */
export const MessageBubble = memo(function MessageBubble({
  message,
  own,
  sender,
  first = true,
  last = true,
  highlighted = false,
  onMenu,
  onReply,
  onReact,
}: {
  message: UiMessage;
  own: boolean;
  /** Who sent it, as said to screen readers: '@bob', or 'you'. */
  sender: string;
  /** The first of its group (more space above it). */
  first?: boolean;
  /** The last of its group (the tail). */
  last?: boolean;
  /** Just jumped to (a reply's quote): outlined for a moment. */
  highlighted?: boolean;
  onMenu: (message: UiMessage, anchor: MenuAnchor) => void;
  /** Starts a reply to this message (the hover button). */
  onReply?: (message: UiMessage) => void;
  /** Opens the reaction picker for this message (the hover button). */
  onReact?: (message: UiMessage, anchor: MenuAnchor) => void;
}) {
  const { deleted } = message;
  const shown = useShown(message);
  // Deleted, or not verifiable: said in muted italics, with no menu on a deleted one.
  const muted = deleted || isNotice(shown);
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
    <OptionsButton
      ref={optionsRef}
      label={`Options for message from ${sender}, ${formatClock(message.timestamp)}`}
      onOpen={(e) => onMenu(message, anchorOf(e.currentTarget))}
    />
  );

  const failed = own ? message.failed : undefined;
  // An open text (not a notice, not deleted): it may carry a reply and the forwarded mark.
  const text = !deleted && shown?.kind === 'text' ? shown : null;
  const at = `message from ${sender}, ${formatClock(message.timestamp)}`;
  // With a mouse, beside the bubble on hover: React and Reply (touch screens use the menu).
  const hoverButtons =
    text && failed === undefined && !message.pending ? (
      <>
        {onReact ? (
          <HoverButton
            kind="react"
            label={`React to ${at}`}
            onPress={(e) => onReact(message, anchorOf(e.currentTarget))}
          />
        ) : null}
        {onReply ? <HoverButton kind="reply" label={`Reply to ${at}`} onPress={() => onReply(message)} /> : null}
      </>
    ) : null;

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
        // As wide as its photo or file: the caption wraps under it.
        text?.attachments && 'w-min',
        'transition-shadow duration-500',
        highlighted && 'ring-4 ring-primary/60',
      )}
      data-message-id={message.id}
    >
      <BubbleContent message={message} shown={shown} text={text} muted={muted} own={own} sender={sender} />
      <BubbleMeta message={message} own={own} clear={text?.clear === true} failed={failed !== undefined} />
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
      {own ? hoverButtons : null}
      {own ? optionsButton : null}
      {bubble}
      {own ? null : optionsButton}
      {own ? null : hoverButtons}
    </div>
  );
  if (failed !== undefined) {
    // A line under the bubble, at its end: what failed, and the way to its menu (Retry, Delete).
    return (
      <>
        {row}
        <NotSentLine reason={failed} onOpen={(e) => onMenu(message, anchorOf(e.currentTarget))} />
      </>
    );
  }
  return (
    <>
      {row}
      <ReactionChips message={message} own={own} />
    </>
  );
});

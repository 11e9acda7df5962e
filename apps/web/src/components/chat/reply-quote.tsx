/**
 * A reply's quote of the message it answers: in the bubble (ReplyQuote, a button that
 * jumps to the original) and above the composer while replying (ReplyBar). The quote
 * follows the original as it is now where this tab has it (edited, or "This message
 * deleted"); an original not loaded yet shows the excerpt sealed with the reply, and one
 * the whole history does not hold says it cannot be found.
 */
import type { ReplyRef } from '@app/e2ee';
import { replyExcerpt } from '@app/e2ee/message-content';
import { DELETED_TEXT } from '@app/protocol';
import { Reply, X } from 'lucide-react';
import type { UiMessage } from '@/client/conversations/conversation';
import { shownText } from '@/client/crypto/message-crypto';
import { useShown } from '@/hooks/chat-hooks';
import { previewText } from '@/lib/attachment-label';
import { cn } from '@/lib/utils';
import { useConversationLookup } from './conversation-context';

export const NOT_FOUND_TEXT = 'Original message not found';

/** Who wrote a quoted message: 'You', the peer's handle, or (a reference to neither) 'Unknown'. */
export function quotedSender(senderId: string, who: { me: string; peerId: string; peerHandle: string }): string {
  if (senderId === who.me) return 'You';
  return senderId === who.peerId ? who.peerHandle : 'Unknown';
}

/** What the quote of `original` says now (null: not opened yet). */
function useQuotedText(original: UiMessage | undefined): string | null {
  const shown = useShown(original ?? null);
  if (!original) return null;
  if (original.deleted || shown?.kind === 'deleted') return DELETED_TEXT;
  if (!shown || shown.kind === 'opening' || shown.kind === 'withheld') return null;
  return shown.kind === 'text' ? replyExcerpt(previewText(shown)) : shownText(shown);
}

export function ReplyQuote({ reply, own }: { reply: ReplyRef; own: boolean }) {
  const lookup = useConversationLookup();
  const original = lookup?.byId.get(reply.msgId);
  const current = useQuotedText(original);
  const sender = lookup ? quotedSender(original?.senderId ?? reply.senderId, lookup) : '';
  const missing = !original && lookup?.complete === true;
  const text = missing ? NOT_FOUND_TEXT : (current ?? reply.excerpt);
  return (
    <button
      type="button"
      onClick={(e) => {
        // The bubble's own long press and right-click stay the bubble's.
        e.stopPropagation();
        lookup?.jumpTo(reply.msgId);
      }}
      className={cn(
        'mb-1 flex w-full min-w-0 basis-full cursor-pointer flex-col items-start rounded-lg border-l-4 px-2 py-1 text-left text-[13px] leading-snug focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring',
        own
          ? 'border-bubble-own-foreground/70 bg-black/10 hover:bg-black/15'
          : 'border-primary bg-foreground/5 hover:bg-foreground/10',
      )}
    >
      <span className={cn('font-semibold', own ? 'text-bubble-own-foreground' : 'text-primary')}>{sender}</span>
      <span
        className={cn(
          'line-clamp-1 w-full break-all',
          own ? 'text-bubble-own-foreground/90' : 'text-muted-foreground',
          (missing || text === DELETED_TEXT) && 'italic',
        )}
      >
        {text}
      </span>
      <span className="sr-only">Go to the original message</span>
    </button>
  );
}

/** Above the composer while replying: who and what is answered, and a button to stop. */
export function ReplyBar({ message, sender, onCancel }: { message: UiMessage; sender: string; onCancel(): void }) {
  const text = useQuotedText(message) ?? '';
  return (
    <div className="flex items-center gap-2 px-3 pt-2">
      <Reply className="size-4 shrink-0 text-primary" aria-hidden />
      <div className="min-w-0 flex-1 rounded-lg border-l-4 border-primary bg-muted px-2 py-1 text-[13px] leading-snug">
        <p className="font-semibold text-primary">Replying to {sender}</p>
        <p className="line-clamp-1 break-all text-muted-foreground">{text}</p>
      </div>
      <button
        type="button"
        onClick={onCancel}
        aria-label="Cancel reply"
        className="flex size-8 shrink-0 cursor-pointer items-center justify-center rounded-full text-muted-foreground hover:bg-accent hover:text-foreground focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring pointer-coarse:size-11"
      >
        <X className="size-4" aria-hidden />
      </button>
    </div>
  );
}

import type { ChatSummary } from '@app/protocol';
import { isNotice } from '@/client/crypto/message-crypto';
import { useChatClient, useOwnLastStatus, useSummaryText } from '@/hooks/chat-hooks';
import { useDraftText } from '@/hooks/draft-hooks';
import { previewText } from '@/lib/attachment-label';
import { cn } from '@/lib/utils';
import { MessageTicks } from './message-ticks';

/**
 * The second line of a chat-list row: the chat's draft ("Draft: ..." like WhatsApp) when
 * the user left one, else the newest message, marked "You: " with its ticks when it is theirs.
 */
export function ChatRowPreview({ chat, unread }: { chat: ChatSummary; unread: boolean }) {
  const preview = useSummaryText(chat);
  const draft = useDraftText(chat.peerId);
  const client = useChatClient();
  const status = useOwnLastStatus(chat);
  if (draft.trim() !== '') {
    return (
      <span className="min-w-0 flex-1 truncate text-sm text-muted-foreground">
        <span className="font-medium text-primary">Draft:</span> {draft}
      </span>
    );
  }
  const text = previewText(preview);
  const own = client !== null && chat.last?.senderId === client.userId && text !== '';
  return (
    <span
      className={cn(
        'flex min-w-0 flex-1 items-center gap-1 text-sm',
        unread ? 'font-medium text-foreground' : 'text-muted-foreground',
      )}
    >
      {own && status ? <MessageTicks message={{ status }} onList className="shrink-0" /> : null}
      <span className="min-w-0 truncate">
        {own ? 'You: ' : null}
        <span className={cn(isNotice(preview) && 'italic')}>{text}</span>
      </span>
    </span>
  );
}

import type { UiMessage } from '@/client/conversations/conversation';
import { useShown } from '@/hooks/chat-hooks';
import { previewText } from '@/lib/attachment-label';

/** '@bob: text', once the message is opened. */
function Announcement({ message, handle }: { message: UiMessage; handle: string }) {
  const shown = useShown(message);
  const text = previewText(shown);
  return text ? <p>{`${handle}: ${text}`}</p> : null;
}

/**
 * The polite live region of an open conversation: screen readers read out each message
 * that arrives from the peer ('@bob: text'), as it is added (a log: new lines at its
 * end). It holds what is current: an edited message's line says its new text, a deleted
 * message's line goes. Visually hidden.
 */
export function IncomingAnnouncer({
  messages,
  current,
  handle,
}: {
  messages: readonly UiMessage[];
  /** The conversation's messages as they are now. */
  current: readonly UiMessage[];
  handle: string;
}) {
  const now = new Map(current.map((m) => [m.id, m]));
  return (
    <div role="log" aria-live="polite" aria-label="New messages" className="sr-only">
      {messages.map((arrived) => {
        const m = now.get(arrived.id) ?? arrived;
        return m.deleted ? null : <Announcement key={m.id} message={m} handle={handle} />;
      })}
    </div>
  );
}

import type { UiMessage } from '@/client/conversations/conversation';
import { shownText } from '@/client/crypto/message-crypto';
import { useShown } from '@/hooks/chat-hooks';

/** '@bob: text', once the message is opened. */
function Announcement({ message, handle }: { message: UiMessage; handle: string }) {
  const shown = useShown(message);
  const text = shownText(shown);
  return text ? <p>{`${handle}: ${text}`}</p> : null;
}

/**
 * The polite live region of an open conversation: screen readers read out each message
 * that arrives from the peer ('@bob: text'), as it is added (a log: new lines at its
 * end). Visually hidden.
 */
export function IncomingAnnouncer({ messages, handle }: { messages: readonly UiMessage[]; handle: string }) {
  return (
    <div role="log" aria-live="polite" aria-label="New messages" className="sr-only">
      {messages.map((m) => (
        <Announcement key={m.id} message={m} handle={handle} />
      ))}
    </div>
  );
}

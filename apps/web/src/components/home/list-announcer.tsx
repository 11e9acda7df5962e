/**
 * The chat list's polite live region: a message arriving in a chat that is not open is
 * read out as "New message from @bob" (no text: a screen reader user opens the chat to hear
 * it, as a sighted one does). A muted chat raises nothing (client/apply-update.ts); a locked
 * one is not named. Visually hidden. The open chat reads out its own (chat/incoming-announcer.tsx).
 */
import { useEffect, useRef, useState } from 'react';
import { useLocation } from 'react-router';
import { useChatClient } from '@/hooks/chat-hooks';

/** Lines kept in the log (the newest; the older ones were read out already). */
const KEPT = 5;

export function ListAnnouncer() {
  const client = useChatClient();
  const { pathname } = useLocation();
  const open = useRef(pathname);
  open.current = pathname;
  const [lines, setLines] = useState<{ id: string; text: string }[]>([]);

  useEffect(() => {
    if (!client) return;
    return client.onAlert((a) => {
      if (a.kind !== 'message') return;
      const { senderId, id } = a.message;
      if (open.current === `/chat/${senderId}`) return;
      const name = a.locked ? null : client.getUser(senderId)?.username;
      const text = name ? `New message from @${name}` : 'New message in a locked chat';
      setLines((l) => [...l, { id, text }].slice(-KEPT));
    });
  }, [client]);

  return (
    <div role="log" aria-live="polite" aria-label="Activity in your chats" className="sr-only">
      {lines.map((l) => (
        <p key={l.id}>{l.text}</p>
      ))}
    </div>
  );
}

import { type ChatSummary, isMuted } from '@app/protocol';
import { useEffect } from 'react';
import { useChatList } from '@/hooks/chat-hooks';

const TITLE = 'Parley';

/**
 * Unread messages the tab's title counts: those of chats in the list, not archived (an
 * archive stays quiet), not locked (a locked chat's activity is not shown without the PIN)
 * and not muted at `now`.
 */
export function unreadForTitle(chats: readonly ChatSummary[], now = Date.now()): number {
  let n = 0;
  for (const c of chats) if (!c.archived && !c.locked && !isMuted(c, now)) n += c.unreadCount;
  return n;
}

/** The tab's title: "(3) Parley" while there are unread messages, else "Parley". */
export function titleFor(unread: number): string {
  return unread > 0 ? `(${unread > 999 ? '999+' : unread}) ${TITLE}` : TITLE;
}

/** Keeps the tab's title counting unread messages while signed in; restores it on leaving. */
export function useTitleBadge(): void {
  const { chats } = useChatList();
  const unread = unreadForTitle(chats);
  useEffect(() => {
    document.title = titleFor(unread);
  }, [unread]);
  useEffect(
    () => () => {
      document.title = TITLE;
    },
    [],
  );
}

import { MessageSquarePlus } from 'lucide-react';
import { useMemo, useState } from 'react';
import { FloatingLink } from '@/components/floating-link';
import { HiddenChatsNav } from '@/components/home/hidden-chats-nav';
import { HomeChatList } from '@/components/home/home-chat-list';
import { HomeHeader } from '@/components/home/home-header';
import { KeysBanner } from '@/components/home/keys-banner';
import { LegacyStatus } from '@/components/home/legacy-status';
import { ScreenFrame } from '@/components/layout/screen-frame';
import { useChatList, useConnectionStatus, useNotifications } from '@/hooks/chat-hooks';
import { useMinuteClock } from '@/hooks/use-minute-clock';
import { matchesUsername } from '@/lib/chat-match';

export default function HomePage() {
  const [searchOpen, setSearchOpen] = useState(false);
  const [query, setQuery] = useState('');
  const list = useChatList();
  const connection = useConnectionStatus();
  const now = useMinuteClock();

  // Archived and locked chats live on their own screens.
  const chats = useMemo(() => list.chats.filter((c) => !c.archived && !c.locked), [list.chats]);
  const archived = useMemo(() => list.chats.filter((c) => c.archived && !c.locked), [list.chats]);
  const archivedUnread = useMemo(() => archived.reduce((n, c) => n + c.unreadCount, 0), [archived]);
  const lockedCount = useMemo(() => list.chats.filter((c) => c.locked).length, [list.chats]);
  const unreadNotifications = useNotifications().unseen;
  const visible = useMemo(
    () => (query.trim() ? chats.filter((c) => matchesUsername(c, query)) : chats),
    [chats, query],
  );

  const closeSearch = () => {
    setSearchOpen(false);
    setQuery('');
  };

  return (
    <ScreenFrame>
      <HomeHeader
        archivedCount={archived.length}
        unreadNotifications={unreadNotifications}
        searchOpen={searchOpen}
        openSearch={() => setSearchOpen(true)}
        closeSearch={closeSearch}
        query={query}
        setQuery={setQuery}
      />
      <KeysBanner />
      <LegacyStatus />
      <HiddenChatsNav archivedCount={archived.length} archivedUnread={archivedUnread} lockedCount={lockedCount} />
      <HomeChatList
        list={list}
        chats={chats}
        visible={visible}
        query={query}
        connection={connection}
        hidden={archived.length > 0 || lockedCount > 0}
        now={now}
      />
      <FloatingLink to="/contacts" label="New chat">
        <MessageSquarePlus aria-hidden />
      </FloatingLink>
    </ScreenFrame>
  );
}

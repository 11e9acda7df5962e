import { APP_NAME, type ChatSummary, handleKey } from '@app/protocol';
import {
  Archive,
  Bell,
  ChevronRight,
  Lock,
  MessageCircle,
  MessageSquarePlus,
  Search,
  Settings,
  Users,
} from 'lucide-react';
import type * as React from 'react';
import { useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ChatRow } from '@/components/chat-row';
import { ConnectionBar } from '@/components/connection-bar';
import { EmptyState as EmptyStateBase } from '@/components/empty-state';
import { FloatingLink } from '@/components/floating-link';
import { Spinner } from '@/components/spinner';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { useMinuteClock } from '@/hooks/use-minute-clock';
import { useChatList, useConnectionStatus, useNotifications } from '@/lib/chat-hooks';
import { cn } from '@/lib/utils';

/** Case-insensitive substring match on the username (spec: chat list search). */
function matchesUsername(chat: ChatSummary, query: string): boolean {
  return (chat.peer?.username ?? '').toLowerCase().includes(handleKey(query));
}

export default function HomePage() {
  const navigate = useNavigate();
  const [searchOpen, setSearchOpen] = useState(false);
  const [query, setQuery] = useState('');
  const list = useChatList();
  const connection = useConnectionStatus();
  const now = useMinuteClock();

  // Archived and locked chats live on their own screens.
  const chats = useMemo(() => list.chats.filter((c) => !c.archived && !c.locked), [list.chats]);
  const archived = useMemo(() => list.chats.filter((c) => c.archived && !c.locked), [list.chats]);
  const archivedCount = archived.length;
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
    <div className="flex min-h-full flex-col bg-muted md:py-8">
      <div className="mx-auto flex w-full max-w-2xl flex-1 flex-col bg-background md:rounded-2xl md:border md:border-border md:shadow-sm">
        <header className="sticky top-0 z-10 border-b border-border bg-background/95 backdrop-blur md:rounded-t-2xl">
          <div className="flex h-14 items-center gap-1 px-2">
            <h1 className="flex-1 truncate">
              <button
                type="button"
                className="rounded-md px-2 py-1 text-xl font-bold tracking-tight text-primary focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
                title={archivedCount > 0 ? 'Archived chats' : undefined}
                onClick={() => {
                  if (archivedCount > 0) navigate('/archive');
                }}
              >
                {APP_NAME}
              </button>
            </h1>
            <Button asChild variant="ghost" size="icon" className="relative">
              <Link
                to="/notifications"
                aria-label={unreadNotifications > 0 ? `Notifications, ${unreadNotifications} unread` : 'Notifications'}
              >
                <Bell aria-hidden />
                <CountBadge count={unreadNotifications} className="absolute right-0.5 top-0.5" />
              </Link>
            </Button>
            <Button asChild variant="ghost" size="icon">
              <Link to="/contacts" aria-label="Contacts">
                <Users aria-hidden />
              </Link>
            </Button>
            <Button
              variant="ghost"
              size="icon"
              aria-label="Search"
              aria-expanded={searchOpen}
              aria-controls="chat-search"
              className={cn(searchOpen && 'bg-accent')}
              onClick={() => (searchOpen ? closeSearch() : setSearchOpen(true))}
            >
              <Search aria-hidden />
            </Button>
            <Button asChild variant="ghost" size="icon">
              <Link to="/settings" aria-label="Settings">
                <Settings aria-hidden />
              </Link>
            </Button>
          </div>
          {searchOpen ? (
            <div id="chat-search" className="px-3 pb-3">
              <div className="relative">
                <Search
                  className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-muted-foreground"
                  aria-hidden
                />
                <Input
                  autoFocus
                  type="search"
                  aria-label="Search by username"
                  placeholder="Search by username..."
                  className="rounded-full bg-muted pl-9"
                  value={query}
                  onChange={(e) => setQuery(e.target.value)}
                  onKeyDown={(e) => {
                    if (e.key === 'Escape') closeSearch();
                  }}
                />
              </div>
            </div>
          ) : null}
          <ConnectionBar />
        </header>

        {archivedCount > 0 || lockedCount > 0 ? (
          <nav aria-label="Hidden chats" className="flex flex-col divide-y divide-border border-b border-border">
            {archivedCount > 0 ? (
              <Shortcut to="/archive" icon={<Archive className="size-5" aria-hidden />} label="Archived">
                {archivedUnread > 0 ? (
                  <span className="rounded-full bg-primary px-1.5 text-[11px] font-semibold leading-5 text-primary-foreground">
                    {archivedUnread > 99 ? '99+' : archivedUnread}
                    <span className="sr-only"> unread</span>
                  </span>
                ) : (
                  <span className="text-xs text-muted-foreground">{archivedCount}</span>
                )}
              </Shortcut>
            ) : null}
            {lockedCount > 0 ? (
              <Shortcut to="/locked" icon={<Lock className="size-5" aria-hidden />} label="Locked" />
            ) : null}
          </nav>
        ) : null}

        <main className="flex flex-1 flex-col">
          {visible.length > 0 ? (
            <ul aria-label="Chats" className="divide-y divide-border">
              {visible.map((chat) => (
                <ChatRow key={chat.chatId} chat={chat} now={now} />
              ))}
            </ul>
          ) : chats.length > 0 ? (
            <EmptyState title="No users found" text={`No chats match “${query.trim()}”`} />
          ) : (list.status === 'loading' || list.status === 'idle') && connection === 'offline' ? (
            <EmptyState title="You are offline" text="Your chats will appear when you are back online" />
          ) : list.status === 'loading' || list.status === 'idle' ? (
            <div className="flex flex-1 items-center justify-center py-16">
              <Spinner />
            </div>
          ) : list.status === 'error' ? (
            <EmptyState title="Could not load your chats" text={list.error ?? 'Please try again.'} />
          ) : archivedCount > 0 || lockedCount > 0 ? (
            <EmptyState title="No other conversations" text="Your other chats are archived or locked" />
          ) : (
            <EmptyState title="No conversations yet" text="Search for users to start chatting" />
          )}
        </main>

        <FloatingLink to="/contacts" label="New chat">
          <MessageSquarePlus aria-hidden />
        </FloatingLink>
      </div>
    </div>
  );
}

/** A row above the list leading to the archived or locked chats. */
function Shortcut({
  to,
  icon,
  label,
  children,
}: {
  to: string;
  icon: React.ReactNode;
  label: string;
  children?: React.ReactNode;
}) {
  return (
    <Link
      to={to}
      className="flex items-center gap-3 px-4 py-2.5 text-sm font-medium transition-colors hover:bg-accent focus-visible:bg-accent focus-visible:outline-none"
    >
      <span className="flex size-9 items-center justify-center text-primary">{icon}</span>
      <span className="flex-1">{label}</span>
      {children}
      <ChevronRight className="size-4 text-muted-foreground" aria-hidden />
    </Link>
  );
}

function EmptyState({ title, text }: { title: string; text: string }) {
  return <EmptyStateBase icon={MessageCircle} title={title} text={text} />;
}

/** A small red count bubble; nothing at zero. */
function CountBadge({ count, className }: { count: number; className?: string }) {
  if (count <= 0) return null;
  return (
    <span
      aria-hidden
      className={cn(
        'flex h-[18px] min-w-[18px] items-center justify-center rounded-full bg-destructive px-1 text-[10px] font-semibold leading-none text-destructive-foreground',
        className,
      )}
    >
      {count > 99 ? '99+' : count}
    </span>
  );
}

import { APP_NAME } from '@app/protocol';
import { Bell, Search, Settings, Users } from 'lucide-react';
import { useEffect, useRef } from 'react';
import { Link, useNavigate } from 'react-router';
import { ConnectionBar } from '@/components/connection-bar';
import { searchFieldKey } from '@/components/keyboard/chat-list-keys';
import { useCardTop, usePaneHeader } from '@/components/layout/screen-frame';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { onSearchRequest, takeSearchRequest } from '@/lib/search-request';
import { cn } from '@/lib/utils';

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

function SearchField({ query, setQuery, close }: { query: string; setQuery(q: string): void; close(): void }) {
  return (
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
            if (e.key === 'Escape') {
              // Taken here: Escape closes the search, not the chat open beside the list.
              e.preventDefault();
              close();
            } else searchFieldKey(e, e.nativeEvent.isComposing);
          }}
        />
      </div>
    </div>
  );
}

/** The home screen's header: the app name (to the archive), notifications, contacts, search and settings. */
export function HomeHeader(props: {
  archivedCount: number;
  unreadNotifications: number;
  searchOpen: boolean;
  openSearch(): void;
  closeSearch(): void;
  query: string;
  setQuery(q: string): void;
}) {
  const navigate = useNavigate();
  const { archivedCount, unreadNotifications, searchOpen } = props;
  const { openSearch } = props;
  // Ctrl/Cmd+K (keyboard-host.tsx): open the search, or focus it when it is open, its last
  // query selected so what is typed next replaces it (as a browser's address bar does).
  const searchButton = useRef<HTMLButtonElement>(null);
  // Where focus was when Ctrl/Cmd+K opened the search: it goes back there when the search closes.
  const returnTo = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const take = () => {
      if (!takeSearchRequest()) return;
      const active = document.activeElement;
      if (active instanceof HTMLElement && active !== document.body && !active.closest('#chat-search')) {
        returnTo.current = active;
      }
      openSearch();
      const input = document.getElementById('chat-search')?.querySelector('input');
      input?.focus();
      input?.select();
    };
    take();
    return onSearchRequest(take);
  }, [openSearch]);
  const cardTop = useCardTop();
  const paneHeader = usePaneHeader();
  return (
    <header
      role={paneHeader.role}
      className={`sticky top-0 z-10 border-b border-border bg-background/95 backdrop-blur ${cardTop}`}
    >
      <div className="flex h-14 items-center gap-1 px-2">
        <paneHeader.Heading tabIndex={-1} data-route-focus className="flex-1 truncate">
          <button
            type="button"
            className="rounded-md px-2 py-1 text-xl font-bold tracking-tight text-primary focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring pointer-coarse:min-h-11"
            title={archivedCount > 0 ? 'Archived chats' : undefined}
            onClick={() => {
              if (archivedCount > 0) navigate('/archive');
            }}
          >
            {APP_NAME}
          </button>
        </paneHeader.Heading>
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
          ref={searchButton}
          aria-label="Search"
          aria-keyshortcuts="Control+K Meta+K"
          aria-expanded={searchOpen}
          aria-controls="chat-search"
          className={cn(searchOpen && 'bg-accent')}
          onClick={() => {
            returnTo.current = null;
            if (searchOpen) props.closeSearch();
            else openSearch();
          }}
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
        <SearchField
          query={props.query}
          setQuery={props.setQuery}
          close={() => {
            props.closeSearch();
            // The field goes away: focus back where Ctrl/Cmd+K was pressed, or on the button that opened it.
            const back = returnTo.current;
            returnTo.current = null;
            (back?.isConnected ? back : searchButton.current)?.focus();
          }}
        />
      ) : null}
      <ConnectionBar />
    </header>
  );
}

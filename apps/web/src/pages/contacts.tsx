import { ArrowLeft, MessageCircle, Search, UserRoundSearch } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { ConnectionBar } from '@/components/connection-bar';
import { ContactRow } from '@/components/contact-row';
import { FloatingLink } from '@/components/floating-link';
import { ScreenFrame, ScreenMain, useCardTop } from '@/components/layout/screen-frame';
import { Spinner } from '@/components/spinner';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { useConnectionStatus, useUserSearch } from '@/hooks/chat-hooks';
import { useDebouncedValue } from '@/hooks/use-debounced-value';
import { focusLinkBackTo } from '@/hooks/use-route-focus';
import { useScrollerVirtualizer } from '@/hooks/use-scroller-virtualizer';
import { cn } from '@/lib/utils';

const SEARCH_DEBOUNCE_MS = 200;
const ROW_PX = 72;
/** Rows from the end of the loaded list at which the next page is fetched. */
const LOAD_MORE_WITHIN = 15;

export default function ContactsPage() {
  const navigate = useNavigate();
  const [query, setQuery] = useState('');
  const debounced = useDebouncedValue(query, SEARCH_DEBOUNCE_MS);
  const search = useUserSearch(debounced);
  const connection = useConnectionStatus();
  const { users, next, loadMore } = search;
  const cardTop = useCardTop();

  // The list scrolls with the page (or the desktop layout's left pane), below the header.
  const headerRef = useRef<HTMLElement>(null);
  const listRef = useRef<HTMLUListElement>(null);
  const virtualizer = useScrollerVirtualizer<HTMLLIElement>({
    count: users.length,
    estimateSize: () => ROW_PX,
    overscan: 8,
    getItemKey: (i) => users[i]?.id ?? i,
    listRef,
    headerRef,
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items.at(-1)?.index ?? -1;

  useEffect(() => {
    if (next && lastIndex >= users.length - LOAD_MORE_WITHIN) loadMore();
  }, [next, lastIndex, users.length, loadMore]);

  const searching = debounced.trim().length > 0;
  const waiting = search.status === 'idle' || search.status === 'loading' || query !== debounced;

  return (
    <ScreenFrame>
      <header
        ref={headerRef}
        className={cn('sticky top-0 z-10 border-b border-border bg-background/95 backdrop-blur', cardTop)}
      >
        <div className="flex h-14 items-center gap-2 px-2">
          <Button
            variant="ghost"
            size="icon"
            aria-label="Back"
            onClick={() => {
              focusLinkBackTo('/contacts');
              navigate('/home');
            }}
          >
            <ArrowLeft />
          </Button>
          <h1 className="flex-1 truncate text-lg font-semibold">Contacts</h1>
        </div>
        <div className="px-3 pb-3">
          <div className="relative">
            <Search
              className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-muted-foreground"
              aria-hidden
            />
            <Input
              type="search"
              aria-label="Search by username"
              placeholder="Search by username..."
              className="rounded-full bg-muted pl-9"
              value={query}
              onChange={(e) => setQuery(e.target.value)}
            />
          </div>
        </div>
        <ConnectionBar />
      </header>

      <ScreenMain className="flex flex-1 flex-col">
        <ul ref={listRef} aria-label="Users" className="relative w-full" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const user = users[item.index];
            if (!user) return null;
            return (
              <li
                key={item.key}
                data-index={item.index}
                ref={virtualizer.measureElement}
                aria-setsize={next ? -1 : users.length}
                aria-posinset={item.index + 1}
                className="absolute left-0 top-0 w-full border-b border-border"
                style={{ transform: `translateY(${item.start - virtualizer.options.scrollMargin}px)` }}
              >
                <ContactRow user={user} />
              </li>
            );
          })}
        </ul>
        {users.length > 0 ? null : waiting && connection !== 'offline' ? (
          <div className="flex flex-1 items-center justify-center py-16">
            <Spinner />
          </div>
        ) : (
          <div className="flex flex-1 flex-col items-center justify-center gap-3 px-6 py-16 text-center">
            <span className="flex size-16 items-center justify-center rounded-full bg-secondary text-primary">
              <UserRoundSearch className="size-8" aria-hidden />
            </span>
            <p className="text-lg font-semibold">
              {search.status === 'error'
                ? 'Could not load users'
                : connection === 'offline' && search.status !== 'ready'
                  ? 'You are offline'
                  : searching
                    ? 'No users found'
                    : 'No contacts available'}
            </p>
            {search.status === 'error' && search.error ? (
              <p className="text-sm text-muted-foreground">{search.error}</p>
            ) : null}
          </div>
        )}
        {search.loadingMore ? (
          <div className="flex justify-center py-4">
            <Spinner />
          </div>
        ) : null}
      </ScreenMain>

      <FloatingLink to="/home" label="Chats">
        <MessageCircle aria-hidden />
      </FloatingLink>
    </ScreenFrame>
  );
}

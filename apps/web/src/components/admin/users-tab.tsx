import { ADMIN_MSG, ADMIN_USERS_SCROLL_PX, type AdminUser } from '@app/protocol';
import { useVirtualizer } from '@tanstack/react-virtual';
import { BadgeCheck, Search, ShieldBan, ShieldCheck, UserRoundSearch } from 'lucide-react';
import { useCallback, useEffect, useRef, useState } from 'react';
import { EmptyState } from '@/components/empty-state';
import { Spinner } from '@/components/spinner';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { notify, notifyError } from '@/components/ui/toaster';
import { UserAvatar } from '@/components/user-avatar';
import { VerifiedBadge } from '@/components/verified-badge';
import { useDebouncedValue } from '@/hooks/use-debounced-value';
import { adminUsers, setUserFlags } from '@/lib/admin-api';
import { cn } from '@/lib/utils';

const SEARCH_DEBOUNCE_MS = 250;
const ROW_PX = 68;
/** Rows from the end of the loaded list at which the next page is fetched. */
const LOAD_MORE_WITHIN = 20;

interface ListState {
  users: AdminUser[];
  next: string | null;
  total: number;
  status: 'loading' | 'ready' | 'error';
  error: string | null;
  loadingMore: boolean;
}

const INITIAL: ListState = { users: [], next: null, total: 0, status: 'loading', error: null, loadingMore: false };

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : 'Something went wrong. Please try again.';
}

/** The admin's user list: search, a virtualised 600 px list, Verify and Block toggles. */
export function UsersTab({ onTotal }: { onTotal?: (total: number) => void }) {
  const [query, setQuery] = useState('');
  const debounced = useDebouncedValue(query.trim(), SEARCH_DEBOUNCE_MS);
  const [list, setList] = useState<ListState>(INITIAL);
  const [busy, setBusy] = useState<ReadonlySet<string>>(new Set());
  const generation = useRef(0);
  /** Flags changed here: a page fetched before the change must not put the old ones back. */
  const changed = useRef(new Map<string, AdminUser>());
  const fresh = useCallback((users: AdminUser[]) => users.map((u) => changed.current.get(u.id) ?? u), []);

  const load = useCallback(
    (q: string) => {
      const gen = ++generation.current;
      setList((l) => ({ ...l, status: 'loading', error: null }));
      adminUsers(q).then(
        (page) => {
          if (gen !== generation.current) return;
          setList({ ...INITIAL, users: fresh(page.users), next: page.next, total: page.total, status: 'ready' });
          if (q === '') onTotal?.(page.total);
        },
        (e: unknown) => {
          if (gen === generation.current) setList({ ...INITIAL, status: 'error', error: errorText(e) });
        },
      );
    },
    [onTotal, fresh],
  );

  useEffect(() => load(debounced), [debounced, load]);

  const loadMore = useCallback(() => {
    const after = list.next;
    if (!after || list.loadingMore || list.status !== 'ready') return;
    const gen = generation.current;
    setList((l) => ({ ...l, loadingMore: true }));
    adminUsers(debounced, after).then(
      (page) => {
        if (gen !== generation.current) return;
        setList((l) => ({
          ...l,
          users: [...l.users, ...fresh(page.users).filter((u) => !l.users.some((o) => o.id === u.id))],
          next: page.next,
          total: page.total,
          loadingMore: false,
        }));
      },
      (e: unknown) => {
        if (gen !== generation.current) return;
        setList((l) => ({ ...l, loadingMore: false }));
        notifyError('Could not load more users', errorText(e));
      },
    );
  }, [list.next, list.loadingMore, list.status, debounced, fresh]);

  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: list.users.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_PX,
    overscan: 8,
    getItemKey: (i) => list.users[i]?.id ?? i,
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items.at(-1)?.index ?? -1;
  useEffect(() => {
    if (list.next && lastIndex >= list.users.length - LOAD_MORE_WITHIN) loadMore();
  }, [list.next, lastIndex, list.users.length, loadMore]);

  const change = async (user: AdminUser, flags: { verified?: boolean; blocked?: boolean }) => {
    if (busy.has(user.id)) return;
    setBusy((b) => new Set(b).add(user.id));
    try {
      const updated = await setUserFlags(user.id, flags);
      changed.current.set(updated.id, updated);
      setList((l) => ({ ...l, users: l.users.map((u) => (u.id === updated.id ? updated : u)) }));
      if (flags.verified !== undefined) notify(flags.verified ? ADMIN_MSG.userVerified : ADMIN_MSG.verificationRemoved);
      else notify(flags.blocked ? ADMIN_MSG.userBlocked : ADMIN_MSG.userUnblocked);
    } catch (e) {
      notifyError('Update Failed', errorText(e));
    } finally {
      setBusy((b) => {
        const n = new Set(b);
        n.delete(user.id);
        return n;
      });
    }
  };

  const searching = debounced.length > 0;
  return (
    <div className="grid gap-3">
      <div className="relative">
        <Search
          className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-muted-foreground"
          aria-hidden
        />
        <Input
          type="search"
          aria-label="Search users"
          placeholder="Search by username, name or email..."
          className="rounded-full bg-muted pl-9"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
      </div>
      <p className="text-xs text-muted-foreground" aria-live="polite">
        {list.status === 'ready'
          ? `${list.total.toLocaleString('en-US')} ${list.total === 1 ? 'user' : 'users'}${searching ? ' found' : ''}`
          : '\u00a0'}
      </p>
      <div
        ref={scrollRef}
        className="overflow-y-auto overscroll-contain rounded-xl border border-border"
        style={{ height: ADMIN_USERS_SCROLL_PX }}
        data-testid="admin-users-scroll"
      >
        {list.users.length > 0 ? (
          <ul aria-label="Users" className="relative w-full" style={{ height: virtualizer.getTotalSize() }}>
            {items.map((item) => {
              const user = list.users[item.index];
              if (!user) return null;
              return (
                <li
                  key={item.key}
                  data-index={item.index}
                  ref={virtualizer.measureElement}
                  aria-setsize={list.next ? -1 : list.users.length}
                  aria-posinset={item.index + 1}
                  className="absolute left-0 top-0 w-full border-b border-border last:border-b-0"
                  style={{ transform: `translateY(${item.start}px)` }}
                >
                  <AdminUserRow user={user} busy={busy.has(user.id)} onChange={(f) => void change(user, f)} />
                </li>
              );
            })}
          </ul>
        ) : list.status === 'loading' ? (
          <div className="flex h-full items-center justify-center">
            <Spinner />
          </div>
        ) : list.status === 'error' ? (
          <div className="flex h-full flex-col items-center justify-center gap-3 p-6 text-center">
            <p role="alert" className="text-sm text-destructive">
              {list.error}
            </p>
            <Button variant="outline" size="sm" onClick={() => load(debounced)}>
              Retry
            </Button>
          </div>
        ) : (
          <EmptyState icon={UserRoundSearch} title={searching ? 'No users found' : 'No users yet'} />
        )}
        {list.loadingMore ? (
          <div className="flex justify-center py-3">
            <Spinner />
          </div>
        ) : null}
      </div>
    </div>
  );
}

function AdminUserRow({
  user,
  busy,
  onChange,
}: {
  user: AdminUser;
  busy: boolean;
  onChange: (flags: { verified?: boolean; blocked?: boolean }) => void;
}) {
  return (
    <div
      className={cn('flex items-center gap-3 px-3 py-2.5', user.blocked && 'bg-red-50/60 dark:bg-red-400/5')}
      data-testid="admin-user-row"
      data-username={user.username}
    >
      <UserAvatar name={user.name || user.username} size="sm" />
      <div className="min-w-0 flex-1">
        <p className="flex min-w-0 items-center gap-1">
          <span className="truncate font-medium">@{user.username}</span>
          {user.verified ? <VerifiedBadge /> : null}
          {user.isSelf ? (
            <span className="shrink-0 rounded-full bg-secondary px-1.5 py-px text-[10px] font-semibold text-secondary-foreground">
              You
            </span>
          ) : null}
          {user.blocked ? (
            <span className="shrink-0 rounded-full bg-red-100 px-1.5 py-px text-[10px] font-semibold text-red-700 dark:bg-red-400/15 dark:text-red-300">
              Blocked
            </span>
          ) : null}
        </p>
        <p className="truncate text-xs text-muted-foreground" title={user.email}>
          {user.email}
        </p>
      </div>
      <div className="flex shrink-0 flex-col gap-1.5 sm:flex-row">
        <Button
          size="sm"
          variant={user.verified ? 'secondary' : 'outline'}
          className="w-24"
          aria-pressed={user.verified}
          aria-label={`${user.verified ? 'Verified' : 'Verify'} @${user.username}`}
          title={user.isSelf && user.verified ? 'You cannot remove your own verification' : undefined}
          disabled={busy || (user.isSelf && user.verified)}
          onClick={() => onChange({ verified: !user.verified })}
        >
          {user.verified ? <BadgeCheck aria-hidden /> : <ShieldCheck aria-hidden />}
          {user.verified ? 'Verified' : 'Verify'}
        </Button>
        <Button
          size="sm"
          variant={user.blocked ? 'destructive' : 'outline'}
          className={cn('w-24', !user.blocked && 'text-destructive hover:text-destructive')}
          aria-pressed={user.blocked}
          aria-label={`${user.blocked ? 'Unblock' : 'Block'} @${user.username}`}
          title={user.isSelf ? 'You cannot block your own account' : undefined}
          disabled={busy || user.isSelf}
          onClick={() => onChange({ blocked: !user.blocked })}
        >
          <ShieldBan aria-hidden />
          {user.blocked ? 'Unblock' : 'Block'}
        </Button>
      </div>
    </div>
  );
}

/**
 * Other users as the ChatClient knows them: public profiles, presence (for the `watch`
 * set that the screens showing those users register) and the server-side username
 * search of the contacts screen, a page at a time.
 */
import { handleKey, type Presence, type PublicUser } from '@app/protocol';
import { type ContactUser, EMPTY_SEARCH, type UserSearchView } from './conversations/conversation';
import { type ChatSocket, RequestError } from './socket/chat-socket';

/** Most users the server watches for one socket. */
const WATCH_MAX = 500;
const WATCH_DEBOUNCE_MS = 100;
/** A cached search older than this is fetched again when a screen shows it anew. */
const SEARCH_FRESH_MS = 30_000;
const SEARCHES_KEPT = 20;

interface Search {
  view: UserSearchView;
  fetchedAt: number;
  generation: number;
}

function sameUser(a: PublicUser, b: PublicUser): boolean {
  return a.username === b.username && a.name === b.name && a.profilePic === b.profilePic && a.verified === b.verified;
}

/** The search key: what the server matches (trimmed, lower case, without a leading '@'). */
export function searchKey(query: string): string {
  return handleKey(query).slice(0, 50);
}

export class UserDirectory {
  private readonly socket: ChatSocket;
  private readonly changed: () => void;
  /** null: no such user (deleted). */
  private readonly users = new Map<string, PublicUser | null>();
  private readonly requested = new Set<string>();
  private readonly presences = new Map<string, Presence>();
  private readonly watchCounts = new Map<string, number>();
  private watchTimer: ReturnType<typeof setTimeout> | null = null;
  private sentWatch: string | null = null;
  private readonly searches = new Map<string, Search>();
  private stopped = false;

  constructor(socket: ChatSocket, changed: () => void) {
    this.socket = socket;
    this.changed = changed;
  }

  user(id: string): PublicUser | null | undefined {
    return this.users.get(id);
  }

  presence(id: string): Presence | undefined {
    return this.presences.get(id);
  }

  /** Records a profile (keeping the old object when nothing changed), or that `id` is gone. */
  remember(user: PublicUser | null, id?: string): void {
    if (user) {
      const old = this.users.get(user.id);
      if (!old || !sameUser(old, user)) {
        this.users.set(user.id, user);
        // A changed profile (a new name, picture or badge) shows in the contact lists at once.
        for (const s of this.searches.values()) {
          const listed = s.view.users.find((u) => u.id === user.id);
          if (!listed || sameUser(listed, user)) continue;
          s.view = {
            ...s.view,
            users: s.view.users.map((u) => (u.id === user.id ? { ...user, online: u.online } : u)),
          };
        }
      }
    } else if (id !== undefined) {
      this.users.set(id, null);
    }
  }

  setPresence(p: Presence): void {
    const old = this.presences.get(p.userId);
    if (old && old.online === p.online && old.lastSeen === p.lastSeen) return;
    this.presences.set(p.userId, p);
    this.changed();
  }

  /** Fetches a profile we do not know yet (and its presence). */
  request(id: string): void {
    if (this.users.has(id) || this.requested.has(id) || this.socket.status !== 'online') return;
    this.requested.add(id);
    this.socket.request('user', { userId: id }).then(
      (r) => {
        this.requested.delete(id);
        this.remember(r.user);
        this.setPresence(r.presence);
        this.changed();
      },
      (e: unknown) => {
        this.requested.delete(id);
        if (e instanceof RequestError && (e.code === 'not_found' || e.code === 'invalid_frame')) {
          this.users.set(id, null);
          this.changed();
        }
      },
    );
  }

  // ---- presence watching -------------------------------------------------------------

  /** A screen shows these users: keep their presence pushed. Returns the release. */
  watch(ids: readonly string[]): () => void {
    for (const id of ids) this.watchCounts.set(id, (this.watchCounts.get(id) ?? 0) + 1);
    this.scheduleWatch();
    return () => {
      for (const id of ids) {
        const n = (this.watchCounts.get(id) ?? 1) - 1;
        if (n <= 0) this.watchCounts.delete(id);
        else this.watchCounts.set(id, n);
      }
      this.scheduleWatch();
    };
  }

  private scheduleWatch(): void {
    if (this.stopped || this.watchTimer) return;
    this.watchTimer = setTimeout(() => {
      this.watchTimer = null;
      this.sendWatch();
    }, WATCH_DEBOUNCE_MS);
  }

  private sendWatch(): void {
    if (this.stopped || this.socket.status !== 'online') return;
    const ids = [...this.watchCounts.keys()].slice(0, WATCH_MAX).sort();
    const key = ids.join(',');
    if (key === this.sentWatch) return;
    this.sentWatch = key;
    this.socket.request('watch', { userIds: ids }).then(
      (r) => {
        for (const p of r.presence) this.setPresence(p);
      },
      () => {
        if (this.sentWatch === key) this.sentWatch = null;
      },
    );
  }

  /** The socket is gone: the server forgot our watch set, and what we knew of presence may be stale. */
  connectionLost(): void {
    this.sentWatch = null;
    if (this.presences.size > 0) {
      this.presences.clear();
      this.changed();
    }
  }

  /** Connected again: send the watch set, and retry searches that failed. */
  resync(): void {
    this.sentWatch = null;
    this.sendWatch();
    for (const [key, s] of this.searches) if (s.view.status === 'error') this.search(key);
  }

  // ---- username search (contacts) ----------------------------------------------------

  getSearch(query: string): UserSearchView {
    return this.searches.get(searchKey(query))?.view ?? EMPTY_SEARCH;
  }

  private setSearch(s: Search, view: Partial<UserSearchView>): void {
    s.view = { ...s.view, ...view };
    this.changed();
  }

  /** Shows the first page for `query`, fetching it unless a fresh one is cached. */
  search(query: string): void {
    const key = searchKey(query);
    let s = this.searches.get(key);
    if (s) {
      // Most recently used last, so the oldest is evicted first.
      this.searches.delete(key);
      this.searches.set(key, s);
      if (s.view.status === 'loading') return;
      if (s.view.status === 'ready' && Date.now() - s.fetchedAt < SEARCH_FRESH_MS) return;
    } else {
      s = { view: { ...EMPTY_SEARCH, query: key }, fetchedAt: 0, generation: 0 };
      this.searches.set(key, s);
      for (const old of this.searches.keys()) {
        if (this.searches.size <= SEARCHES_KEPT) break;
        if (old !== key) this.searches.delete(old);
      }
    }
    if (this.socket.status !== 'online') return;
    const search = s;
    const generation = ++search.generation;
    this.setSearch(search, { status: search.view.status === 'ready' ? 'ready' : 'loading', error: null });
    this.socket.request('users', { query: key }).then(
      (r) => {
        if (generation !== search.generation) return;
        search.fetchedAt = Date.now();
        this.seed(r.users);
        this.setSearch(search, {
          users: r.users,
          next: r.next,
          status: 'ready',
          loadingMore: false,
          error: null,
        });
      },
      (e: unknown) => {
        if (generation !== search.generation) return;
        this.setSearch(search, { status: 'error', error: e instanceof Error ? e.message : 'Search failed' });
      },
    );
  }

  /** Loads the next page of `query`'s results. */
  loadMore(query: string): void {
    const key = searchKey(query);
    const search = this.searches.get(key);
    const after = search?.view.next;
    if (!search || !after || search.view.status !== 'ready' || search.view.loadingMore) return;
    if (this.socket.status !== 'online') return;
    const generation = search.generation;
    this.setSearch(search, { loadingMore: true });
    this.socket.request('users', { query: key, after }).then(
      (r) => {
        if (generation !== search.generation) return;
        this.seed(r.users);
        const seen = new Set(search.view.users.map((u) => u.id));
        this.setSearch(search, {
          users: [...search.view.users, ...r.users.filter((u) => !seen.has(u.id))],
          next: r.next,
          loadingMore: false,
        });
      },
      () => {
        if (generation !== search.generation) return;
        this.setSearch(search, { loadingMore: false });
      },
    );
  }

  /** Profiles and presence learnt from a search page. */
  private seed(users: readonly ContactUser[]): void {
    for (const { online, ...user } of users) {
      this.remember(user);
      const known = this.presences.get(user.id);
      if (!known || known.online !== online) {
        this.presences.set(user.id, { userId: user.id, online, lastSeen: known?.lastSeen ?? null });
      }
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.watchTimer) clearTimeout(this.watchTimer);
  }
}

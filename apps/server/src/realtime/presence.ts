/**
 * Who is online: a user is online while at least one of their sockets, on any process,
 * is open. The first socket marks them online, the last one to close records lastSeen.
 * Counting is done by a PresenceCounter: in memory for one process, in Redis for several
 * (presence-redis.ts). Changes travel as hub control messages, so watchers on every
 * process hear them. A user who hides their last seen is shown with lastSeen null
 * ("Last seen recently"); the watcher's own setting is applied by the watcher
 * (Connection.sendPresence).
 */
import type { Presence } from '@app/protocol';
import type { AccountStore } from '../storage/accounts/account-store.ts';
import type { SocialStore } from '../storage/social/social-store.ts';
import type { Hub } from './hub.ts';

export interface PresenceWatcher {
  sendPresence(p: Presence): void;
}

/** Counts open sockets per user across the processes that share it. */
export interface PresenceCounter {
  /** One more socket; true when the user was offline everywhere until now. */
  connect(userId: string): Promise<boolean>;
  /** One socket fewer; true when it was the user's last one anywhere. */
  disconnect(userId: string): Promise<boolean>;
  /** Which of these users have a socket open anywhere. */
  online(userIds: readonly string[]): Promise<Set<string>>;
  close(): Promise<void>;
}

export class MemoryPresenceCounter implements PresenceCounter {
  private readonly counts = new Map<string, number>();

  async connect(userId: string): Promise<boolean> {
    const n = (this.counts.get(userId) ?? 0) + 1;
    this.counts.set(userId, n);
    return n === 1;
  }

  async disconnect(userId: string): Promise<boolean> {
    const n = (this.counts.get(userId) ?? 0) - 1;
    if (n > 0) {
      this.counts.set(userId, n);
      return false;
    }
    this.counts.delete(userId);
    return true;
  }

  async online(userIds: readonly string[]): Promise<Set<string>> {
    return new Set(userIds.filter((id) => (this.counts.get(id) ?? 0) > 0));
  }

  async close(): Promise<void> {}
}

export class PresenceTracker {
  private readonly watchers = new Map<string, Set<PresenceWatcher>>();
  private readonly store: AccountStore;
  private readonly social: SocialStore;
  private readonly hub: Hub;
  readonly counter: PresenceCounter;
  private readonly unsubscribe: () => void;

  constructor(
    store: AccountStore,
    social: SocialStore,
    hub: Hub,
    counter: PresenceCounter = new MemoryPresenceCounter(),
  ) {
    this.store = store;
    this.social = social;
    this.hub = hub;
    this.counter = counter;
    this.unsubscribe = hub.subscribeControl((msg) => {
      if (msg.kind === 'presence') this.notifyLocal(msg.presence);
      else if (msg.kind === 'presenceRefresh' && this.watchers.has(msg.userId)) {
        this.get(msg.userId).then(
          (p) => this.notifyLocal(p),
          () => {},
        );
      }
    });
  }

  async isOnline(userId: string): Promise<boolean> {
    return (await this.counter.online([userId])).has(userId);
  }

  online(userIds: readonly string[]): Promise<Set<string>> {
    return this.counter.online(userIds);
  }

  async connect(userId: string, now = Date.now()): Promise<void> {
    if (await this.counter.connect(userId)) await this.wentOnline(userId, now);
  }

  async disconnect(userId: string, now = Date.now()): Promise<void> {
    if (await this.counter.disconnect(userId)) await this.wentOffline(userId, now);
  }

  private async wentOnline(userId: string, now: number): Promise<void> {
    await this.store.setPresence(userId, 'online', now);
    const shown = await this.social.showsLastSeen(userId);
    this.hub.publishControl({ kind: 'presence', presence: { userId, online: true, lastSeen: shown ? now : null } });
  }

  /** The user's last socket closed (or the process that held it died). */
  async wentOffline(userId: string, now = Date.now()): Promise<void> {
    await this.store.setPresence(userId, 'offline', now);
    const shown = await this.social.showsLastSeen(userId);
    this.hub.publishControl({ kind: 'presence', presence: { userId, online: false, lastSeen: shown ? now : null } });
  }

  async get(userId: string): Promise<Presence> {
    const user = await this.store.userById(userId);
    const shown = user ? await this.social.showsLastSeen(userId) : false;
    const online = await this.isOnline(userId);
    return { userId, online, lastSeen: shown ? (user?.lastSeen ?? null) : null };
  }

  /** The user's privacy changed: their watchers, on every process, get their presence anew. */
  async refresh(userId: string): Promise<void> {
    this.hub.publishControl({ kind: 'presenceRefresh', userId });
  }

  watch(watcher: PresenceWatcher, userIds: Iterable<string>): void {
    for (const id of userIds) {
      let set = this.watchers.get(id);
      if (!set) {
        set = new Set();
        this.watchers.set(id, set);
      }
      set.add(watcher);
    }
  }

  unwatch(watcher: PresenceWatcher, userIds: Iterable<string>): void {
    for (const id of userIds) {
      const set = this.watchers.get(id);
      if (!set) continue;
      set.delete(watcher);
      if (set.size === 0) this.watchers.delete(id);
    }
  }

  private notifyLocal(p: Presence): void {
    for (const w of this.watchers.get(p.userId) ?? []) w.sendPresence(p);
  }

  async close(): Promise<void> {
    this.unsubscribe();
    await this.counter.close();
  }
}

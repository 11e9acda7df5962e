/**
 * Who is online: a user is online while at least one of their sockets is open. The
 * first socket marks them online, the last one to close records lastSeen. A user who
 * hides their last seen is shown with lastSeen null ("Last seen recently"); the
 * watcher's own setting is applied by the watcher (Connection.sendPresence).
 */
import type { Presence } from '@app/protocol';
import type { SocialStore } from '../storage/social-store.ts';
import type { Store } from '../storage/store.ts';

export interface PresenceWatcher {
  sendPresence(p: Presence): void;
}

export class PresenceTracker {
  private readonly counts = new Map<string, number>();
  private readonly watchers = new Map<string, Set<PresenceWatcher>>();
  private readonly store: Store;
  private readonly social: SocialStore;

  constructor(store: Store, social: SocialStore) {
    this.store = store;
    this.social = social;
  }

  isOnline(userId: string): boolean {
    return (this.counts.get(userId) ?? 0) > 0;
  }

  async connect(userId: string, now = Date.now()): Promise<void> {
    const n = (this.counts.get(userId) ?? 0) + 1;
    this.counts.set(userId, n);
    if (n === 1) {
      await this.store.setPresence(userId, 'online', now);
      const shown = await this.social.showsLastSeen(userId);
      this.notify({ userId, online: true, lastSeen: shown ? now : null });
    }
  }

  async disconnect(userId: string, now = Date.now()): Promise<void> {
    const n = (this.counts.get(userId) ?? 0) - 1;
    if (n > 0) {
      this.counts.set(userId, n);
      return;
    }
    this.counts.delete(userId);
    await this.store.setPresence(userId, 'offline', now);
    const shown = await this.social.showsLastSeen(userId);
    this.notify({ userId, online: false, lastSeen: shown ? now : null });
  }

  async get(userId: string): Promise<Presence> {
    const user = await this.store.userById(userId);
    const shown = user ? await this.social.showsLastSeen(userId) : false;
    return { userId, online: this.isOnline(userId), lastSeen: shown ? (user?.lastSeen ?? null) : null };
  }

  /** The user's privacy changed: their watchers get their presence anew. */
  async refresh(userId: string): Promise<void> {
    if (!this.watchers.has(userId)) return;
    this.notify(await this.get(userId));
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

  private notify(p: Presence): void {
    for (const w of this.watchers.get(p.userId) ?? []) w.sendPresence(p);
  }
}

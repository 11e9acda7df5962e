/**
 * The user's notifications as the ChatClient holds them: the merged list (personal
 * items and admin broadcasts, newest first), the bell count, and the live changes
 * from the update log.
 */
import type { NotificationItem, Update } from '@app/protocol';
import { logged } from '@/lib/log';
import type { LoadStatus } from './conversations/conversation';
import type { ChatSocket } from './socket/chat-socket';

export interface NotificationsView {
  items: readonly NotificationItem[];
  /** Unread personal items plus broadcasts not seen yet: the bell badge. */
  unseen: number;
  status: LoadStatus;
  error: string | null;
}

export const EMPTY_NOTIFICATIONS: NotificationsView = Object.freeze({
  items: Object.freeze([]) as readonly NotificationItem[],
  unseen: 0,
  status: 'idle',
  error: null,
});

type NotificationUpdate = Extract<Update, { kind: 'notification' | 'notificationRemoved' | 'notificationsSeen' }>;

function byNewest(a: NotificationItem, b: NotificationItem): number {
  return b.timestamp - a.timestamp || (a.id < b.id ? 1 : -1);
}

export class NotificationCenter {
  private readonly socket: ChatSocket;
  private readonly changed: () => void;
  private items: NotificationItem[] = [];
  private unseen = 0;
  private status: LoadStatus = 'idle';
  private error: string | null = null;
  private cached: NotificationsView | null = null;
  /** Bumped by every change, so a load that raced with one is applied over, not under, it. */
  private version = 0;

  constructor(socket: ChatSocket, changed: () => void) {
    this.socket = socket;
    this.changed = changed;
  }

  view(): NotificationsView {
    this.cached ??= { items: this.items, unseen: this.unseen, status: this.status, error: this.error };
    return this.cached;
  }

  private touch(): void {
    this.version += 1;
    this.cached = null;
    this.changed();
  }

  /** Loads the list and the count (on every welcome: broadcasts are not in the update log). */
  async load(): Promise<void> {
    if (this.status !== 'ready') this.status = 'loading';
    this.touch();
    const version = this.version;
    try {
      const r = await this.socket.request('notifications', {});
      if (version !== this.version) return void this.load();
      this.items = r.items.slice().sort(byNewest);
      this.unseen = r.unseen;
      this.status = 'ready';
      this.error = null;
    } catch (e) {
      if (this.status !== 'ready') this.status = 'error';
      this.error = e instanceof Error ? e.message : 'Could not load notifications';
    }
    this.touch();
  }

  static handles(u: Update): u is NotificationUpdate {
    return u.kind === 'notification' || u.kind === 'notificationRemoved' || u.kind === 'notificationsSeen';
  }

  apply(u: NotificationUpdate): void {
    if (u.kind === 'notification') {
      const had = this.items.find((n) => n.id === u.notification.id);
      this.items = [...this.items.filter((n) => n.id !== u.notification.id), u.notification].sort(byNewest);
      if (!u.notification.read && (!had || had.read)) this.unseen += 1;
    } else if (u.kind === 'notificationRemoved') {
      const had = this.items.find((n) => n.id === u.id);
      this.items = this.items.filter((n) => n.id !== u.id);
      if (had && !had.read) this.unseen = Math.max(0, this.unseen - 1);
    } else {
      this.items = this.items.map((n) => (n.read || n.timestamp > u.at ? n : { ...n, read: true }));
      this.unseen = this.items.filter((n) => !n.read).length;
    }
    this.touch();
  }

  /** /notifications is open: everything so far is seen (the badge clears at once). */
  async markSeen(): Promise<void> {
    if (this.unseen === 0 && this.items.every((n) => n.read)) return;
    this.unseen = 0;
    this.touch();
    await this.socket.request('notificationsSeen', {}).catch(logged('notifications', 'mark seen'));
  }

  /** Accepts or declines a request; it leaves the list once the server has done it. */
  async respond(id: string, accept: boolean): Promise<void> {
    await this.socket.request('respondRequest', { notificationId: id, accept });
    const had = this.items.find((n) => n.id === id);
    this.items = this.items.filter((n) => n.id !== id);
    if (had && !had.read) this.unseen = Math.max(0, this.unseen - 1);
    this.touch();
  }
}

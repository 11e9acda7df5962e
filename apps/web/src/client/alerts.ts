/**
 * What may deserve a browser notification while the tab is hidden: new messages,
 * contact requests and broadcasts, each told once (an update may be replayed after a
 * reconnect).
 */
import type { ChatMessage, NotificationItem } from '@app/protocol';

export type Alert =
  | { kind: 'message'; message: ChatMessage; locked: boolean }
  | { kind: 'request'; notification: Extract<NotificationItem, { type: 'request' }> }
  | { kind: 'broadcast'; notification: Extract<NotificationItem, { type: 'admin' }> };

export class Alerts {
  private readonly listeners = new Set<(a: Alert) => void>();
  /** Alerts already told, by key. */
  private readonly told = new Set<string>();

  tell(a: Alert): void {
    // An edited broadcast (new timestamp) is news again.
    const key =
      a.kind === 'message'
        ? a.message.id
        : a.kind === 'broadcast'
          ? `${a.notification.id}@${a.notification.timestamp}`
          : a.notification.id;
    if (this.told.has(key)) return;
    if (this.told.size > 500) this.told.clear();
    this.told.add(key);
    for (const l of [...this.listeners]) l(a);
  }

  listen(listener: (a: Alert) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/**
 * What may deserve a browser notification while the tab is hidden: new messages,
 * contact requests and broadcasts, each told once (an update may be replayed after a
 * reconnect).
 */
import type { ChatMessage, NotificationItem, Reaction } from '@app/protocol';

export type Alert =
  | { kind: 'message'; message: ChatMessage; locked: boolean }
  | { kind: 'request'; notification: Extract<NotificationItem, { type: 'request' }> }
  | { kind: 'broadcast'; notification: Extract<NotificationItem, { type: 'admin' }> }
  /** Someone reacted to a message in one of the user's chats. */
  | { kind: 'reaction'; reaction: Reaction; locked: boolean };

/** What makes an alert news once. */
function alertKey(a: Alert): string {
  if (a.kind === 'message') return a.message.id;
  if (a.kind === 'reaction') return `${a.reaction.msgId}/${a.reaction.userId}@${a.reaction.at}`;
  // An edited broadcast (new timestamp) is news again.
  if (a.kind === 'broadcast') return `${a.notification.id}@${a.notification.timestamp}`;
  return a.notification.id;
}

export class Alerts {
  private readonly listeners = new Set<(a: Alert) => void>();
  /** Alerts already told, by key. */
  private readonly told = new Set<string>();

  tell(a: Alert): void {
    const key = alertKey(a);
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

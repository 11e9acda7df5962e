/**
 * Which messages of an open conversation have just arrived from the peer: the ones the
 * screen announces and counts on its "Jump to latest message" button. Messages loaded
 * when it opened, pages loaded later and the user's own messages are not arrivals.
 */
import type { UiMessage } from '@/client/conversations/conversation';

export class Arrivals {
  private readonly seen = new Set<string>();
  /** The newest confirmed message's time so far: an older page is all before it. */
  private newest = Number.NEGATIVE_INFINITY;

  private readonly me: string;

  constructor(me: string, messages: readonly UiMessage[]) {
    this.me = me;
    this.note(messages);
  }

  /**
   * The messages from the peer in `messages` that are new since the last call, in order.
   * Not `live`: the change was pages loaded (a window far back, or the newest in its place).
   */
  take(messages: readonly UiMessage[], live = true): UiMessage[] {
    if (!live) {
      this.note(messages);
      return [];
    }
    const fresh = messages.filter(
      (m) => !this.seen.has(m.id) && !m.pending && !m.deleted && m.senderId !== this.me && m.timestamp >= this.newest,
    );
    this.note(messages);
    return fresh;
  }

  private note(messages: readonly UiMessage[]): void {
    for (const m of messages) {
      this.seen.add(m.id);
      if (!m.pending && m.timestamp > this.newest) this.newest = m.timestamp;
    }
  }
}

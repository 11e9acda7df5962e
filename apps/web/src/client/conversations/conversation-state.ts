/**
 * One conversation as the ChatClient holds it: the loaded messages in server order,
 * its paging and loading state, and the immutable view the screens read (rebuilt
 * only after a change).
 */
import type { ChatMessage } from '@app/protocol';
import { type ConversationView, type LoadStatus, mergeMessages, type UiMessage, upsertMessage } from './conversation';

export class ConversationState {
  readonly peerId: string;
  readonly chatId: string;
  /** Confirmed messages, sorted by (timestamp, id). */
  list: readonly ChatMessage[] = [];
  private byId = new Map<string, ChatMessage>();
  hasMore = false;
  status: LoadStatus = 'idle';
  loadingOlder = false;
  error: string | null = null;
  /** The chat is locked and this session has no PIN grant: nothing is shown. */
  locked = false;
  /** Screens that show it. */
  opens = 0;
  /** Bumped by each newest-page load, so an older page meant for a replaced list is dropped. */
  generation = 0;
  private cached: ConversationView | null = null;

  constructor(peerId: string, chatId: string) {
    this.peerId = peerId;
    this.chatId = chatId;
  }

  /** Something shown changed: the next view is built anew. */
  touch(): void {
    this.cached = null;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  find(id: string): ChatMessage | undefined {
    return this.byId.get(id);
  }

  oldest(): ChatMessage | undefined {
    return this.list[0];
  }

  /** A message's new state (updates carry the full message). */
  upsert(m: ChatMessage): void {
    this.list = upsertMessage(this.list, m, this.byId.get(m.id));
    this.byId.set(m.id, m);
    this.touch();
  }

  /** The newest page, replacing everything loaded before. */
  replace(messages: readonly ChatMessage[], hasMore: boolean): void {
    this.list = messages.slice();
    this.byId = new Map(messages.map((m) => [m.id, m]));
    this.hasMore = hasMore;
    this.status = 'ready';
    this.error = null;
    this.touch();
  }

  /** An older page. */
  prepend(messages: readonly ChatMessage[], hasMore: boolean): void {
    this.list = mergeMessages(this.list, messages);
    for (const m of messages) this.byId.set(m.id, m);
    this.hasMore = hasMore;
    this.touch();
  }

  /**
   * The view, with the outbox's messages to this peer (not yet confirmed): failed ones
   * where they were typed among the confirmed ones (they stay put while later ones go
   * out), waiting ones at the end.
   */
  view(pending: () => UiMessage[]): ConversationView {
    if (!this.cached) {
      let messages = this.list as readonly UiMessage[];
      const waiting: UiMessage[] = [];
      for (const m of pending()) {
        if (this.byId.has(m.id)) continue;
        if (m.failed !== undefined) messages = upsertMessage(messages, m, undefined);
        else waiting.push(m);
      }
      this.cached = {
        messages: waiting.length > 0 ? [...messages, ...waiting] : messages,
        hasMore: this.hasMore,
        status: this.status,
        loadingOlder: this.loadingOlder,
        error: this.error,
        locked: this.locked,
      };
    }
    return this.cached;
  }
}

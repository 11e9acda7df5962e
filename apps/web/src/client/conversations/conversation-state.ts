/**
 * One conversation as the ChatClient holds it: the loaded messages in server order,
 * its paging and loading state, and the immutable view the screens read (rebuilt
 * only after a change).
 *
 * What is loaded is one window of the history without gaps: from the newest message
 * down (paged up), or, after a jump far back, a window around a message (`hasNewer`),
 * paged both ways until it meets the newest. A message outside it is not added (a new one
 * past a window far back, a receipt for one pages up): it waits to be paged to (or, for new
 * ones, the reader goes to the newest, which loads it).
 */
import type { ChatMessage } from '@app/protocol';
import {
  type ConversationView,
  compareMessages,
  type LoadStatus,
  mergeMessages,
  type UiMessage,
  upsertMessage,
} from './conversation';

const RANK = { sent: 0, delivered: 1, read: 2 } as const;

/**
 * `m` as it replaces `previous`, keeping a later delivery state of the same revision: an
 * answer made before a receipt (an edit's, a page's) can arrive after the receipt's update,
 * and taken whole would show "sent" for a message read. A new revision (an edit, a
 * deletion) starts its ticks anew, so only the same revision keeps them.
 */
export function keepingTicks(previous: ChatMessage | undefined, m: ChatMessage): ChatMessage {
  if (!previous || previous.rev !== m.rev || previous.deleted !== m.deleted) return m;
  if (RANK[previous.status] <= RANK[m.status]) return m;
  return { ...m, status: previous.status, deliveredAt: previous.deliveredAt, readAt: previous.readAt };
}

export class ConversationState {
  readonly peerId: string;
  readonly chatId: string;
  /** Confirmed messages, sorted by (timestamp, id). */
  list: readonly ChatMessage[] = [];
  private byId = new Map<string, ChatMessage>();
  hasMore = false;
  /** Newer messages exist after the loaded window (it is away from the newest). */
  hasNewer = false;
  status: LoadStatus = 'idle';
  loadingOlder = false;
  loadingNewer = false;
  error: string | null = null;
  /** The chat is locked and this session has no PIN grant: nothing is shown. */
  locked = false;
  /** Screens that show it. */
  opens = 0;
  /** Bumped by each load that replaces the list, so a page meant for a replaced list is dropped. */
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

  newest(): ChatMessage | undefined {
    return this.list.at(-1);
  }

  /**
   * Outside what is loaded, with messages not loaded between (before the oldest while older
   * ones exist, after the newest in a window far back): left out, or the list would have a
   * gap (and paging from its edge would skip what is in the gap).
   */
  private outside(m: ChatMessage): boolean {
    const first = this.list[0];
    const last = this.list.at(-1);
    if (!first || !last) return this.hasMore || this.hasNewer;
    return (this.hasMore && compareMessages(m, first) < 0) || (this.hasNewer && compareMessages(m, last) > 0);
  }

  /**
   * A message's new state (updates carry the full message). One not loaded and outside what
   * is loaded (a receipt or an edit of a message pages back, a new one past a window) is left out.
   */
  upsert(incoming: ChatMessage): void {
    const previous = this.byId.get(incoming.id);
    if (!previous && this.outside(incoming)) return;
    const m = keepingTicks(previous, incoming);
    this.list = upsertMessage(this.list, m, previous);
    this.byId.set(m.id, m);
    this.touch();
  }

  /** A page that replaces everything loaded before: the newest, or one around a message. */
  replace(page: readonly ChatMessage[], hasMore: boolean, hasNewer = false): void {
    const messages = page.map((m) => keepingTicks(this.byId.get(m.id), m));
    this.list = messages;
    this.byId = new Map(messages.map((m) => [m.id, m]));
    this.hasMore = hasMore;
    this.hasNewer = hasNewer;
    this.status = 'ready';
    this.error = null;
    this.touch();
  }

  /** An older page. */
  prepend(messages: readonly ChatMessage[], hasMore: boolean): void {
    this.merge(messages);
    this.hasMore = hasMore;
  }

  /** A newer page; the last one joins the window to the newest. */
  append(messages: readonly ChatMessage[], hasNewer: boolean): void {
    this.merge(messages);
    this.hasNewer = hasNewer;
  }

  /**
   * The page around a message: joined to what is loaded when the two meet (a jump a page
   * or two back keeps the rest), else in its place. Returns whether it was joined.
   */
  window(messages: readonly ChatMessage[], hasMore: boolean, hasNewer: boolean): boolean {
    const meets =
      this.status === 'ready' && (messages.some((m) => this.byId.has(m.id)) || (!hasNewer && !this.hasNewer));
    if (!meets) {
      this.replace(messages, hasMore, hasNewer);
      return false;
    }
    const first = messages[0];
    const oldest = this.list[0];
    this.merge(messages);
    if (first && (!oldest || compareMessages(first, oldest) <= 0)) this.hasMore = hasMore;
    if (!hasNewer) this.hasNewer = false;
    return true;
  }

  private merge(page: readonly ChatMessage[]): void {
    const messages = page.map((m) => keepingTicks(this.byId.get(m.id), m));
    this.list = mergeMessages(this.list, messages);
    for (const m of messages) this.byId.set(m.id, m);
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
        if (this.byId.has(m.id) || this.outside(m)) continue;
        if (m.failed !== undefined) messages = upsertMessage(messages, m, undefined);
        else waiting.push(m);
      }
      this.cached = {
        messages: waiting.length > 0 ? [...messages, ...waiting] : messages,
        hasMore: this.hasMore,
        hasNewer: this.hasNewer,
        status: this.status,
        loadingOlder: this.loadingOlder,
        loadingNewer: this.loadingNewer,
        error: this.error,
        locked: this.locked,
      };
    }
    return this.cached;
  }
}

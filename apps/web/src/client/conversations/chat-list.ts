/**
 * The chat list of a ChatClient: the user's chat summaries, loaded with `chats` and kept
 * current by the update log, with the unread messages that arrived while no page was
 * connected acknowledged as delivered after each load.
 */
import {
  type ChatMessage,
  type ChatSummary,
  HISTORY_PAGE,
  type PublicUser,
  summaryAfter,
  type Update,
} from '@app/protocol';
import type { ChatSocket } from '../socket/chat-socket';
import type { UpdateReplay } from '../update-replay';
import type { UserDirectory } from '../user-directory';
import type { ChatListView, LoadStatus } from './conversation';

/** Most chats whose unread messages are fetched at load to acknowledge them (the socket's burst is 100 frames). */
const ACK_UNREAD_CHATS_MAX = 20;

export interface ChatListDeps {
  socket: ChatSocket;
  users: UserDirectory;
  replay: UpdateReplay;
  /** Applies an update of the log (replayed over a load's answer). */
  apply(u: Update): void;
  /** A message reached this client (acknowledged as delivered if new). */
  received(m: ChatMessage): void;
  /** Whether a screen shows the conversation with `peerId` (it acknowledges its own). */
  isOpen(peerId: string): boolean;
  changed(): void;
  destroyed(): boolean;
}

/**
 * What a load of the list re-applies of an update that arrived meanwhile: everything but
 * messages (their conversations replay them), and of a new message the summary it made.
 */
export function listPart(u: Update): Update | null {
  if (u.kind !== 'message') return u;
  return u.chat ? { kind: 'chat', chat: summaryAfter(u.chat, u.message) } : null;
}

/** The list's order: pinned chats first (the latest pinned on top), then the newest activity first. */
export function listOrder(a: ChatSummary, b: ChatSummary): number {
  return (b.pinnedAt ?? -1) - (a.pinnedAt ?? -1) || b.timestamp - a.timestamp || (a.chatId < b.chatId ? -1 : 1);
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : 'Something went wrong. Please try again.';
}

export class ChatList {
  private chats = new Map<string, ChatSummary>();
  private status: LoadStatus = 'idle';
  private error: string | null = null;
  private cached: ChatListView | null = null;
  private loading: Promise<void> | null = null;
  private readonly deps: ChatListDeps;

  constructor(deps: ChatListDeps) {
    this.deps = deps;
  }

  get ready(): boolean {
    return this.status === 'ready';
  }

  get(chatId: string): ChatSummary | undefined {
    return this.chats.get(chatId);
  }

  set(chat: ChatSummary): void {
    this.chats.set(chat.chatId, chat);
    this.cached = null;
  }

  delete(chatId: string): void {
    this.chats.delete(chatId);
    this.cached = null;
  }

  /** A peer's public profile changed: their rows show it. */
  applyPeer(user: PublicUser): void {
    for (const [id, c] of this.chats) if (c.peerId === user.id) this.chats.set(id, { ...c, peer: user });
    this.cached = null;
  }

  view(): ChatListView {
    this.cached ??= {
      chats: [...this.chats.values()].sort(listOrder),
      status: this.status,
      error: this.error,
    };
    return this.cached;
  }

  /** Loads (or reloads) the list; a load under way is joined, not started again. */
  load(): Promise<void> {
    this.loading ??= this.fetch().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private async fetch(): Promise<void> {
    const { socket, users, replay } = this.deps;
    this.status = 'loading';
    this.cached = null;
    this.deps.changed();
    const start = replay.begin();
    let ok = false;
    try {
      const r = await socket.request('chats', {});
      this.chats = new Map(r.chats.map((c) => [c.chatId, c]));
      for (const c of r.chats) if (c.peer) users.remember(c.peer);
      ok = true;
      this.acknowledgeUnread(r.chats);
      this.status = 'ready';
      this.error = null;
    } catch (e) {
      this.status = 'error';
      this.error = errorText(e);
    } finally {
      replay.end(
        start,
        (u) => ok && listPart(u) !== null,
        (u) => this.deps.apply(listPart(u) as Update),
      );
      this.cached = null;
      this.deps.changed();
    }
  }

  /**
   * Messages that arrived while no page of ours was connected reach us only as unread
   * counts in the chat list: fetch them (newest chats first, a page each) so they are
   * acknowledged as delivered, as they are when they arrive live.
   */
  private acknowledgeUnread(chats: readonly ChatSummary[]): void {
    const unread = chats
      .filter((c) => c.unreadCount > 0 && !this.deps.isOpen(c.peerId))
      .sort((a, b) => b.timestamp - a.timestamp)
      .slice(0, ACK_UNREAD_CHATS_MAX);
    for (const c of unread) {
      this.deps.socket.request('history', { peerId: c.peerId, limit: Math.min(c.unreadCount, HISTORY_PAGE) }).then(
        (r) => {
          if (!this.deps.destroyed()) for (const m of r.messages) this.deps.received(m);
        },
        () => {},
      );
    }
  }
}

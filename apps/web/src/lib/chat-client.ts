/**
 * The ChatClient: one per signed-in tab, outside React. It owns the socket (through
 * ChatSocket), applies the server's update log in seq order to its caches (chat list,
 * conversations, users, presence, typing), sends delivery and read receipts, and
 * drains the outbox. Screens read immutable snapshots through lib/chat-hooks.ts.
 */
import {
  type ChatMessage,
  type ChatSummary,
  chatIdOf,
  HISTORY_PAGE,
  MESSAGE_MAX,
  type Presence,
  type PublicUser,
  type Update,
} from '@app/protocol';
import { ChatSocket, type ConnectionStatus, type SocketHandlers } from './chat-socket';
import {
  type ChatListView,
  type ConversationView,
  EMPTY_CONVERSATION,
  type LoadStatus,
  peerOfMessage,
} from './conversation';
import { ConversationState } from './conversation-state';
import { Outbox } from './outbox-queue';
import { Receipts } from './receipts';
import { Typing } from './typing';
import { UserDirectory } from './user-directory';

export interface ClientEvents {
  /** Something the user should hear about (a toast). */
  error(title: string, text?: string): void;
  blocked(): void;
  checkSession(): void;
  outdated(): void;
}

/** Exhaustiveness at compile time; at run time an update of a newer server is skipped. */
function assertNever(x: never): void {
  console.warn('Unknown update', x);
}

/** Most chats whose unread messages are fetched at load to acknowledge them (the socket's burst is 100 frames). */
const ACK_UNREAD_CHATS_MAX = 20;

function message(e: unknown): string {
  return e instanceof Error ? e.message : 'Something went wrong. Please try again.';
}

export class ChatClient {
  readonly userId: string;
  readonly socket: ChatSocket;
  readonly users: UserDirectory;
  private readonly outbox: Outbox;
  private readonly receipts: Receipts;
  private readonly events: ClientEvents;
  private lastSeq: number | null = null;
  private destroyed = false;
  private readonly listeners = new Set<() => void>();

  private chats = new Map<string, ChatSummary>();
  private chatsStatus: LoadStatus = 'idle';
  private chatsError: string | null = null;
  private chatListView: ChatListView | null = null;

  private readonly conversations = new Map<string, ConversationState>();
  private readonly typing: Typing;

  /** Updates applied while a load is in flight, re-applied over its (possibly older) result. */
  private loadsInFlight = 0;
  private replayLog: Update[] = [];

  constructor(userId: string, events: ClientEvents) {
    this.userId = userId;
    this.events = events;
    const handlers: SocketHandlers = {
      status: (s) => this.onStatus(s),
      welcome: (w) => this.onWelcome(w),
      update: (seq, u) => this.onUpdate(seq, u),
      presence: (p) => this.users.setPresence(p),
      typing: (from, typing) => this.typing.received(from, typing),
      serverError: (_code, text) => events.error('Error', text),
      blocked: () => events.blocked(),
      checkSession: () => events.checkSession(),
      outdated: () => events.outdated(),
    };
    this.socket = new ChatSocket(handlers, () => this.lastSeq);
    const changed = () => this.changed();
    this.users = new UserDirectory(this.socket, changed);
    this.receipts = new Receipts(this.socket);
    this.typing = new Typing(this.socket, changed);
    this.outbox = new Outbox(userId, this.socket, {
      changed: (peerId) => {
        this.conversations.get(peerId)?.touch();
        this.changed();
      },
      acknowledged: (m) => {
        this.applyMessage(m);
        this.changed();
      },
      failed: (text) => events.error('Message Not Sent', text),
    });
  }

  start(): void {
    this.socket.start();
    void this.outbox.load();
  }

  destroy(): void {
    this.destroyed = true;
    this.typing.destroy();
    this.receipts.stop();
    this.outbox.stop();
    this.users.stop();
    this.socket.stop();
    this.listeners.clear();
  }

  // ---- store plumbing ----------------------------------------------------------------

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private changed(): void {
    if (this.destroyed) return;
    for (const l of [...this.listeners]) l();
  }

  get status(): ConnectionStatus {
    return this.socket.status;
  }

  // ---- connection --------------------------------------------------------------------

  private onStatus(status: ConnectionStatus): void {
    if (status !== 'online') {
      this.typing.connectionLost();
      this.users.connectionLost();
    }
    this.changed();
  }

  private onWelcome(w: { userId: string; seq: number; resumed: boolean }): void {
    if (w.userId !== this.userId) {
      // Another account signed in in this browser: stop before its updates reach our
      // caches; the session module then replaces this client.
      this.socket.stop();
      this.events.checkSession();
      return;
    }
    if (!w.resumed) {
      this.lastSeq = w.seq;
      void this.loadChats();
      for (const [peerId, c] of this.conversations) {
        if (c.opens > 0) void this.loadNewest(c);
        else this.conversations.delete(peerId);
      }
    } else {
      if (this.chatsStatus !== 'ready') void this.loadChats();
      for (const c of this.conversations.values()) {
        if (c.opens > 0 && c.status !== 'ready') void this.loadNewest(c);
      }
    }
    this.users.resync();
    this.receipts.flush();
    this.outbox.flush();
    this.changed();
  }

  private onUpdate(seq: number, update: Update): void {
    if (this.lastSeq !== null && seq <= this.lastSeq) return;
    this.lastSeq = seq;
    if (this.loadsInFlight > 0) this.replayLog.push(update);
    this.apply(update);
    this.changed();
  }

  private apply(update: Update): void {
    switch (update.kind) {
      case 'message':
        this.applyMessage(update.message);
        return;
      case 'chat':
        this.chats.set(update.chat.chatId, update.chat);
        if (update.chat.peer) this.users.remember(update.chat.peer);
        this.chatListView = null;
        return;
      case 'chatRemoved':
        this.chats.delete(update.chatId);
        this.chatListView = null;
        return;
      default:
        assertNever(update);
    }
  }

  /** Acknowledges a message that reached this client (sent → delivered). */
  private received(m: ChatMessage): void {
    if (m.recipientId === this.userId && m.status === 'sent' && !m.deleted) this.receipts.delivered(m.chatId, m.id);
  }

  private applyMessage(m: ChatMessage): void {
    this.received(m);
    this.conversations.get(peerOfMessage(m, this.userId))?.upsert(m);
  }

  private beginLoad(): number {
    this.loadsInFlight += 1;
    return this.replayLog.length;
  }

  private endLoad(start: number, keep: (u: Update) => boolean): void {
    for (const u of this.replayLog.slice(start)) if (keep(u)) this.apply(u);
    this.loadsInFlight -= 1;
    if (this.loadsInFlight === 0) this.replayLog = [];
  }

  // ---- chat list ---------------------------------------------------------------------

  getChatList = (): ChatListView => {
    this.chatListView ??= {
      chats: [...this.chats.values()].sort((a, b) => b.timestamp - a.timestamp || (a.chatId < b.chatId ? -1 : 1)),
      status: this.chatsStatus,
      error: this.chatsError,
    };
    return this.chatListView;
  };

  private async loadChats(): Promise<void> {
    if (this.chatsStatus === 'loading') return;
    this.chatsStatus = 'loading';
    this.chatListView = null;
    this.changed();
    const start = this.beginLoad();
    let ok = false;
    try {
      const r = await this.socket.request('chats', {});
      this.chats = new Map(r.chats.map((c) => [c.chatId, c]));
      for (const c of r.chats) if (c.peer) this.users.remember(c.peer);
      ok = true;
      this.acknowledgeUnread(r.chats);
      this.chatsStatus = 'ready';
      this.chatsError = null;
    } catch (e) {
      this.chatsStatus = 'error';
      this.chatsError = message(e);
    } finally {
      this.endLoad(start, (u) => ok && u.kind !== 'message');
      this.chatListView = null;
      this.changed();
    }
  }

  /**
   * Messages that arrived while no page of ours was connected reach us only as unread
   * counts in the chat list: fetch them (newest chats first, a page each) so they are
   * acknowledged as delivered, as they are when they arrive live.
   */
  private acknowledgeUnread(chats: readonly ChatSummary[]): void {
    const unread = chats
      .filter((c) => c.unreadCount > 0 && !this.conversations.get(c.peerId)?.opens)
      .sort((a, b) => b.timestamp - a.timestamp)
      .slice(0, ACK_UNREAD_CHATS_MAX);
    for (const c of unread) {
      this.socket.request('history', { peerId: c.peerId, limit: Math.min(c.unreadCount, HISTORY_PAGE) }).then(
        (r) => {
          if (!this.destroyed) for (const m of r.messages) this.received(m);
        },
        () => {},
      );
    }
  }

  /** The summary of the chat with `peerId`, if there is one. */
  chatWith(peerId: string): ChatSummary | undefined {
    return this.chats.get(chatIdOf(this.userId, peerId));
  }

  // ---- conversations -----------------------------------------------------------------

  /** A screen shows this conversation: load its newest page if needed. Returns the release. */
  openConversation(peerId: string): () => void {
    let conv = this.conversations.get(peerId);
    if (!conv) {
      conv = new ConversationState(peerId, chatIdOf(this.userId, peerId));
      this.conversations.set(peerId, conv);
    }
    const c = conv;
    c.opens += 1;
    if (c.status === 'idle' || c.status === 'error') void this.loadNewest(c);
    return () => {
      c.opens -= 1;
      if (c.opens === 0) this.stopTyping(peerId);
    };
  }

  getConversation(peerId: string): ConversationView {
    const c = this.conversations.get(peerId);
    return c ? c.view(() => this.outbox.messagesTo(peerId)) : EMPTY_CONVERSATION;
  }

  /** Loads (or reloads) the newest page; it replaces what was loaded before. */
  private async loadNewest(c: ConversationState): Promise<void> {
    if (this.socket.status !== 'online') return; // loaded on welcome
    const generation = ++c.generation;
    if (c.status !== 'ready') c.status = 'loading';
    c.touch();
    this.changed();
    const start = this.beginLoad();
    let ok = false;
    try {
      const r = await this.socket.request('history', { peerId: c.peerId, limit: HISTORY_PAGE });
      if (generation !== c.generation || this.destroyed) return;
      this.users.remember(r.peer, c.peerId);
      c.replace(r.messages, r.hasMore);
      ok = true;
      for (const m of r.messages) this.received(m);
    } catch (e) {
      if (generation !== c.generation) return;
      if (c.status !== 'ready') c.status = 'error';
      c.error = message(e);
    } finally {
      this.endLoad(start, (u) => ok && u.kind === 'message' && u.message.chatId === c.chatId);
      c.touch();
      this.changed();
    }
  }

  /** Loads the page before the oldest loaded message. */
  async loadOlder(peerId: string): Promise<void> {
    const c = this.conversations.get(peerId);
    const oldest = c?.oldest();
    if (!c || !oldest || c.status !== 'ready' || !c.hasMore || c.loadingOlder) return;
    if (this.socket.status !== 'online') return;
    const generation = c.generation;
    c.loadingOlder = true;
    c.touch();
    this.changed();
    const start = this.beginLoad();
    let ok = false;
    try {
      const r = await this.socket.request('history', {
        peerId,
        before: { timestamp: oldest.timestamp, id: oldest.id },
        limit: HISTORY_PAGE,
      });
      if (generation !== c.generation || this.destroyed) return;
      c.prepend(r.messages, r.hasMore);
      ok = true;
      for (const m of r.messages) this.received(m);
    } catch (e) {
      c.error = message(e);
    } finally {
      c.loadingOlder = false;
      this.endLoad(start, (u) => ok && u.kind === 'message' && u.message.chatId === c.chatId);
      c.touch();
      this.changed();
    }
  }

  // ---- sending -----------------------------------------------------------------------

  /** Queues a message in the outbox (shown at once, sent when online). Ignores blank text. */
  sendMessage(peerId: string, text: string): void {
    if (text.trim().length === 0 || text.length > MESSAGE_MAX) return;
    this.stopTyping(peerId);
    this.outbox.add(peerId, text);
  }

  async editMessage(m: ChatMessage, text: string): Promise<void> {
    if (text.trim().length === 0 || text.length > MESSAGE_MAX) return;
    const r = await this.socket.request('edit', { chatId: m.chatId, msgId: m.id, text });
    this.applyMessage(r.message);
    this.changed();
  }

  async deleteMessage(m: ChatMessage): Promise<void> {
    const r = await this.socket.request('delete', { chatId: m.chatId, msgId: m.id });
    this.applyMessage(r.message);
    this.changed();
  }

  /** The chat with `peerId` is open and visible: everything from them is read (debounced). */
  markRead(peerId: string): void {
    this.receipts.read(peerId);
  }

  // ---- typing ------------------------------------------------------------------------

  isTyping(peerId: string): boolean {
    return this.typing.isTyping(peerId);
  }

  /** The user typed in the chat with `peerId`: typing now, cleared after a second of quiet. */
  noteTyping(peerId: string): void {
    this.typing.note(peerId);
  }

  stopTyping(peerId: string): void {
    this.typing.stop(peerId);
  }

  // ---- users and presence (see UserDirectory) ----------------------------------------

  getUser(userId: string): PublicUser | null | undefined {
    return this.users.user(userId);
  }

  getPresence(userId: string): Presence | undefined {
    return this.users.presence(userId);
  }
}

/**
 * The ChatClient: one per signed-in tab, outside React. It owns the socket (through
 * ChatSocket), applies the server's update log in seq order to its caches (chat list,
 * conversations, users, presence, typing), sends delivery and read receipts, and
 * drains the outbox. Screens read immutable snapshots through lib/chat-hooks.ts.
 */
import {
  type Access,
  type ChatMessage,
  type ChatSummary,
  chatIdOf,
  type GlobalEvent,
  HISTORY_PAGE,
  type NotificationItem,
  PRIVACY_DEFAULTS,
  type Presence,
  type Privacy,
  type PublicUser,
  type Update,
} from '@app/protocol';
import { ChatSocket, type ConnectionStatus, RequestError, type SocketHandlers } from './chat-socket';
import {
  type ChatListView,
  type ConversationView,
  EMPTY_CONVERSATION,
  type LoadStatus,
  peerOfMessage,
} from './conversation';
import { ConversationState } from './conversation-state';
import { messageTextError } from './message-text';
import { NotificationCenter, type NotificationsView } from './notification-center';
import { Outbox } from './outbox-queue';
import { refreshPublicSettings, setHelpLink } from './public-settings';
import { Receipts } from './receipts';
import { Typing } from './typing';
import { UserDirectory } from './user-directory';

export interface ClientEvents {
  /** Something the user should hear about (a toast). */
  error(title: string, text?: string): void;
  /** Good news worth a toast. */
  notice(title: string, text?: string): void;
  blocked(): void;
  checkSession(): void;
  outdated(): void;
}

/** Something that may deserve a browser notification while the tab is hidden. */
export type Alert =
  | { kind: 'message'; message: ChatMessage; locked: boolean }
  | { kind: 'request'; notification: Extract<NotificationItem, { type: 'request' }> }
  | { kind: 'broadcast'; notification: Extract<NotificationItem, { type: 'admin' }> };

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
  private welcomedBefore = false;
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

  /** The user's own privacy settings, from the welcome and the update log. */
  private privacy: Privacy = { ...PRIVACY_DEFAULTS };
  /** Whether the user may message each peer (from history and the update log). */
  private readonly access = new Map<string, Access>();
  readonly notifications: NotificationCenter;
  private readonly alertListeners = new Set<(a: Alert) => void>();
  /** Messages already alerted about (an update may be replayed after a reconnect). */
  private readonly alerted = new Set<string>();

  constructor(userId: string, events: ClientEvents) {
    this.userId = userId;
    this.events = events;
    const handlers: SocketHandlers = {
      status: (s) => this.onStatus(s),
      welcome: (w) => this.onWelcome(w),
      update: (seq, u) => this.onUpdate(seq, u),
      presence: (p) => this.users.setPresence(p),
      typing: (from, typing) => this.typing.received(from, typing),
      global: (e) => this.onGlobal(e),
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
    this.notifications = new NotificationCenter(this.socket, changed);
    this.outbox = new Outbox(userId, this.socket, {
      changed: (peerId) => {
        this.conversations.get(peerId)?.touch();
        this.changed();
      },
      acknowledged: (m) => {
        this.applyMessage(m);
        this.changed();
      },
      requested: (peerId, access) => {
        this.setAccess(peerId, access);
        const name = this.users.user(peerId)?.username;
        events.notice('Request Sent', `${name ? `@${name}` : 'They'} can reply once they accept your request`);
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

  private onWelcome(w: { userId: string; seq: number; resumed: boolean; privacy: Privacy }): void {
    if (w.userId !== this.userId) {
      // Another account signed in in this browser: stop before its updates reach our
      // caches; the session module then replaces this client.
      this.socket.stop();
      this.events.checkSession();
      return;
    }
    this.privacy = w.privacy;
    // Broadcasts and settings are not in the update log: what was missed is loaded anew.
    void this.notifications.load();
    if (w.resumed || this.welcomedBefore) refreshPublicSettings();
    this.welcomedBefore = true;
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

  private onGlobal(e: GlobalEvent): void {
    switch (e.kind) {
      case 'notification':
        this.notifications.apply(e);
        if (e.notification.type === 'admin') this.alert({ kind: 'broadcast', notification: e.notification });
        return;
      case 'notificationRemoved':
        this.notifications.apply(e);
        return;
      case 'peer':
        this.applyPeer(e.user);
        break;
      case 'settings':
        setHelpLink(e.helpLink);
        return;
      default:
        assertNever(e);
    }
    this.changed();
  }

  private applyPeer(user: PublicUser): void {
    this.users.remember(user);
    for (const [id, c] of this.chats) if (c.peerId === user.id) this.chats.set(id, { ...c, peer: user });
    this.chatListView = null;
    for (const c of this.conversations.values()) if (c.peerId === user.id) c.touch();
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
      case 'peer':
        this.applyPeer(update.user);
        return;
      case 'privacy':
        this.privacy = update.privacy;
        return;
      case 'access':
        this.setAccess(update.peerId, update.access);
        return;
      case 'notification':
        this.notifications.apply(update);
        if (update.notification.type === 'request' && !update.notification.read) {
          this.alert({ kind: 'request', notification: update.notification });
        }
        return;
      case 'notificationRemoved':
      case 'notificationsSeen':
        this.notifications.apply(update);
        return;
      default:
        assertNever(update);
    }
  }

  /** Acknowledges a message that reached this client (sent → delivered). */
  private received(m: ChatMessage): void {
    if (m.recipientId === this.userId && m.status === 'sent' && !m.deleted) this.receipts.delivered(m.chatId, m.id);
  }

  /** A message of a history page: acknowledged if it is new to us, settled if it is ours. */
  private seen(m: ChatMessage): void {
    if (m.senderId === this.userId) this.outbox.settled(m.id);
    else this.received(m);
  }

  private applyMessage(m: ChatMessage): void {
    if (m.senderId === this.userId) this.outbox.settled(m.id);
    const fresh = m.recipientId === this.userId && m.status === 'sent' && !m.deleted && !m.edited;
    const conv = this.conversations.get(peerOfMessage(m, this.userId));
    if (fresh && !conv?.has(m.id)) {
      const summary = this.chats.get(m.chatId);
      this.alert({ kind: 'message', message: m, locked: summary?.locked === true || m.text === '' });
    }
    this.received(m);
    conv?.upsert(m);
  }

  private alert(a: Alert): void {
    // An edited broadcast (new timestamp) is news again.
    const key =
      a.kind === 'message'
        ? a.message.id
        : a.kind === 'broadcast'
          ? `${a.notification.id}@${a.notification.timestamp}`
          : a.notification.id;
    if (this.alerted.has(key)) return;
    if (this.alerted.size > 500) this.alerted.clear();
    this.alerted.add(key);
    for (const l of [...this.alertListeners]) l(a);
  }

  /** New messages and requests, for browser notifications. */
  onAlert(listener: (a: Alert) => void): () => void {
    this.alertListeners.add(listener);
    return () => this.alertListeners.delete(listener);
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
      this.setAccess(c.peerId, r.access);
      c.locked = false;
      c.replace(r.messages, r.hasMore);
      ok = true;
      for (const m of r.messages) this.seen(m);
    } catch (e) {
      if (generation !== c.generation) return;
      if (e instanceof RequestError && e.code === 'locked') {
        // Locked and no PIN grant: whatever was loaded before is dropped from view.
        c.locked = true;
        c.replace([], false);
        c.status = 'error';
      } else if (c.status !== 'ready') c.status = 'error';
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
      for (const m of r.messages) this.seen(m);
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

  /**
   * Queues a message in the outbox (shown at once, sent when online). A text the protocol
   * refuses (blank, too long, not storable) is not queued: returns why (the composer
   * checks first and shows it), or null once queued.
   */
  sendMessage(peerId: string, text: string): string | null {
    const problem = messageTextError(text);
    if (problem !== null) return problem;
    this.stopTyping(peerId);
    this.outbox.add(peerId, text);
    return null;
  }

  /** Sends a failed message again (it waits in the outbox until the user retries or deletes it). */
  retryMessage(msgId: string): void {
    this.outbox.retry(msgId);
  }

  /** Deletes a failed message from the outbox and the conversation (it never reached the server). */
  discardMessage(msgId: string): void {
    this.outbox.discard(msgId);
  }

  async editMessage(m: ChatMessage, text: string): Promise<void> {
    const problem = messageTextError(text);
    if (problem !== null) throw new Error(problem);
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

  // ---- privacy, access, archive and lock ---------------------------------------------

  getPrivacy(): Privacy {
    return this.privacy;
  }

  /** Privacy saved in this tab: applied at once (the update log brings it to other tabs). */
  setPrivacy(p: Privacy): void {
    this.privacy = p;
    this.changed();
  }

  getAccess(peerId: string): Access | undefined {
    return this.access.get(peerId);
  }

  private setAccess(peerId: string, access: Access): void {
    this.access.set(peerId, access);
    this.conversations.get(peerId)?.touch();
  }

  /** Archives, locks, or undoes either; the server refuses locking without a PIN ('pin_required'). */
  async setChatFlags(peerId: string, flags: { archived?: boolean; locked?: boolean }): Promise<ChatSummary> {
    const r = await this.socket.request('chatFlags', { peerId, ...flags });
    this.chats.set(r.chat.chatId, r.chat);
    this.chatListView = null;
    this.changed();
    return r.chat;
  }

  /** The PIN was verified: locked chats' text may be loaded now. */
  pinGranted(): void {
    if (this.socket.status !== 'online') return;
    void this.loadChats();
    for (const c of this.conversations.values()) {
      if (c.locked || this.chats.get(c.chatId)?.locked) {
        if (c.opens > 0) void this.loadNewest(c);
        else this.conversations.delete(c.peerId);
      }
    }
  }

  getNotifications(): NotificationsView {
    return this.notifications.view();
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

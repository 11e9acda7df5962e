/**
 * The ChatClient: one per signed-in tab, outside React. It owns the socket (through
 * ChatSocket), applies the server's update log in seq order to its caches (chat list,
 * conversations, users, presence, typing), sends delivery and read receipts, and
 * drains the outbox. Screens read immutable snapshots through lib/chat-hooks.ts.
 */
import type { BundleContents } from '@app/e2ee';
import {
  type Access,
  type ChatMessage,
  type ChatSummary,
  chatIdOf,
  type GlobalEvent,
  type Presence,
  type Privacy,
  type PublicUser,
  type Update,
} from '@app/protocol';
import { type Alert, Alerts } from './alerts';
import { UpdateApplier } from './apply-update';
import { ChatList } from './chat-list';
import { ChatSocket, type ConnectionStatus, type SocketHandlers } from './chat-socket';
import type { ChatListView, ConversationView } from './conversation';
import { Conversations } from './conversations';
import type { AccountDataHttp, SeenStore } from './keys/account-data';
import { ChatKeys } from './keys/chat-keys';
import { openLocal, sealLocal } from './keys/local-keys';
import { LegacyMigration } from './legacy-migration';
import { MessageCrypto } from './message-crypto';
import { messageTextError } from './message-text';
import { NotificationCenter, type NotificationsView } from './notification-center';
import type { OutboxStore } from './outbox';
import { type LocalSealing, Outbox } from './outbox-queue';
import { OwnStatuses } from './own-status';
import { refreshPublicSettings, setHelpLink } from './public-settings';
import { Receipts } from './receipts';
import { Revisions } from './revisions';
import { sealedDelete, sealedEdit } from './sealed-edit';
import type { SocketEnv } from './socket-env';
import { Typing } from './typing';
import { UpdateReplay } from './update-replay';
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

export type { Alert } from './alerts';

/** Where the client runs: the browser's by default (tests give Node's). */
export interface ClientEnv {
  socket?: SocketEnv;
  outboxStore?: OutboxStore;
  /** This account's private keys (default: this browser's copy, keys/local-keys.ts). */
  accountKeys?: () => Promise<BundleContents | null>;
  /** How the outbox keeps waiting messages at rest (default: sealed under this browser's key). */
  localSealing?: LocalSealing;
  /** The public settings (help link): fetched anew after a reconnect, changed live. */
  settings?: { refresh(): void; setHelpLink(helpLink: string | null): void };
  /** The highest revision seen of each message (default: this browser's, revisions.ts). */
  revisions?: Revisions;
  /** Where the account data is read and written (default: the app's HTTP API). */
  accountData?: AccountDataHttp;
  /** Where the browser keeps the highest version of it seen (default: localStorage). */
  accountDataSeen?: SeenStore;
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
  private readonly settings: NonNullable<ClientEnv['settings']>;

  private readonly chats: ChatList;
  private readonly conversations: Conversations;
  private readonly typing: Typing;
  /** Updates applied while a load is in flight, re-applied over its (possibly older) result. */
  private readonly replay = new UpdateReplay();

  private readonly updates: UpdateApplier;
  readonly notifications: NotificationCenter;
  private readonly alerts = new Alerts();
  /** Keys to seal and open messages, and what messages say (end-to-end encryption). */
  readonly keys: ChatKeys;
  readonly crypto: MessageCrypto;
  private readonly legacy: LegacyMigration;
  /** The state of own messages, for the chat list's ticks. */
  readonly own: OwnStatuses;

  constructor(userId: string, events: ClientEvents, env: ClientEnv = {}) {
    this.userId = userId;
    this.events = events;
    this.settings = env.settings ?? { refresh: refreshPublicSettings, setHelpLink };
    this.socket = new ChatSocket(this.socketHandlers(), () => this.lastSeq, env.socket);
    const changed = () => this.changed();
    this.keys = new ChatKeys(userId, this.socket, env.accountKeys, env.accountData, env.accountDataSeen);
    this.crypto = new MessageCrypto(this.keys, changed, env.revisions ?? new Revisions(userId));
    this.legacy = new LegacyMigration({
      userId,
      socket: this.socket,
      keys: this.keys,
      migrated: (m, text) => {
        this.crypto.remember(m.chatId, m.id, 0, text, true);
        this.updates.applyMessage(m);
      },
    });
    this.users = new UserDirectory(this.socket, changed);
    this.receipts = new Receipts(this.socket);
    this.own = new OwnStatuses(userId, this.socket, changed);
    this.typing = new Typing(this.socket, changed);
    this.notifications = new NotificationCenter(this.socket, changed);
    const apply = (u: Update) => this.updates.apply(u);
    const destroyed = () => this.destroyed;
    this.chats = new ChatList({
      socket: this.socket,
      users: this.users,
      replay: this.replay,
      apply,
      received: (m) => this.updates.received(m),
      isOpen: (peerId) => this.conversations.isOpen(peerId),
      changed,
      destroyed,
    });
    this.conversations = new Conversations({
      userId,
      socket: this.socket,
      users: this.users,
      replay: this.replay,
      apply,
      seen: (m) => {
        this.updates.seen(m);
        this.legacy.offer(m);
      },
      setAccess: (peerId, access) => this.updates.setAccess(peerId, access),
      pending: (peerId) => this.outbox.messagesTo(peerId),
      closed: (peerId) => this.stopTyping(peerId),
      changed,
      destroyed,
    });
    this.updates = new UpdateApplier({
      userId,
      chats: this.chats,
      conversations: this.conversations,
      users: this.users,
      notifications: this.notifications,
      alerts: this.alerts,
      receipts: this.receipts,
      settled: (msgId) => this.outbox.settled(msgId),
      noted: (m) => this.own.note(m),
      setHelpLink: (h) => this.settings.setHelpLink(h),
      accountData: (version) => this.keys.data.refresh(version),
    });
    this.outbox = this.createOutbox(env.outboxStore, env.localSealing ?? { seal: sealLocal, open: openLocal });
  }

  private socketHandlers(): SocketHandlers {
    const events = this.events;
    return {
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
  }

  private createOutbox(store: OutboxStore | undefined, local: LocalSealing): Outbox {
    return new Outbox(
      this.userId,
      this.socket,
      {
        seal: (to, msgId, text) => this.crypto.sealSend(this.userId, to, msgId, text),
        keysMoved: (to) => this.keys.invalidate(chatIdOf(this.userId, to), to),
        changed: (peerId) => {
          this.conversations.get(peerId)?.touch();
          this.changed();
        },
        acknowledged: (m) => {
          this.updates.applyMessage(m);
          this.changed();
        },
        requested: (peerId, access) => {
          this.updates.setAccess(peerId, access);
          const name = this.users.user(peerId)?.username;
          this.events.notice('Request Sent', `${name ? `@${name}` : 'They'} can reply once they accept your request`);
          this.changed();
        },
        failed: (text) => this.events.error('Message Not Sent', text),
      },
      store,
      Math.random,
      local,
    );
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
    this.updates.privacy = w.privacy;
    // Broadcasts and settings are not in the update log: what was missed is loaded anew.
    void this.notifications.load();
    if (w.resumed || this.welcomedBefore) this.settings.refresh();
    this.welcomedBefore = true;
    if (!w.resumed) {
      this.lastSeq = w.seq;
      this.own.reset();
    }
    if (!w.resumed || !this.chats.ready) void this.chats.load();
    this.conversations.welcomed(w.resumed);
    this.users.resync();
    this.receipts.flush();
    this.outbox.flush();
    this.changed();
  }

  private onUpdate(seq: number, update: Update): void {
    if (this.lastSeq !== null && seq <= this.lastSeq) return;
    this.lastSeq = seq;
    this.replay.record(update);
    this.updates.apply(update);
    this.changed();
  }

  private onGlobal(e: GlobalEvent): void {
    if (this.updates.global(e)) this.changed();
  }

  /** New messages and requests, for browser notifications. */
  onAlert(listener: (a: Alert) => void): () => void {
    return this.alerts.listen(listener);
  }

  // ---- chat list ---------------------------------------------------------------------

  getChatList = (): ChatListView => this.chats.view();

  /** The summary of the chat with `peerId`, if there is one. */
  chatWith(peerId: string): ChatSummary | undefined {
    return this.chats.get(chatIdOf(this.userId, peerId));
  }

  // ---- conversations -----------------------------------------------------------------

  /** A screen shows this conversation: load its newest page if needed. Returns the release. */
  openConversation(peerId: string): () => void {
    return this.conversations.open(peerId);
  }

  getConversation(peerId: string): ConversationView {
    return this.conversations.view(peerId);
  }

  /** Loads the page before the oldest loaded message. */
  loadOlder(peerId: string): Promise<void> {
    return this.conversations.loadOlder(peerId);
  }

  // ---- sending -----------------------------------------------------------------------

  /**
   * Queues a message in the outbox (shown at once, sent when online). A text the protocol
   * refuses (blank, too long, not storable) is not queued: returns why (the composer
   * checks first and shows it), or null once queued.
   */
  sendMessage(peerId: string, text: string): string | null {
    const queued = this.queueMessage(peerId, text);
    return 'problem' in queued ? queued.problem : null;
  }

  /** As sendMessage; once queued, `stored` resolves when the message outlives a reload (Outbox.add). */
  queueMessage(peerId: string, text: string): { problem: string } | { stored: Promise<void> } {
    const problem = messageTextError(text);
    if (problem !== null) return { problem };
    this.stopTyping(peerId);
    return { stored: this.outbox.add(peerId, text) };
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
    this.updates.applyMessage(await sealedEdit(this.socket, this.keys, this.crypto, m, text));
    this.changed();
  }

  async deleteMessage(m: ChatMessage): Promise<void> {
    this.updates.applyMessage(await sealedDelete(this.socket, this.keys, this.crypto, m));
    this.changed();
  }

  /** The chat with `peerId` is open and visible: everything from them is read (debounced). */
  markRead(peerId: string): void {
    this.receipts.read(peerId);
  }

  // ---- privacy, access, archive and lock ---------------------------------------------

  getPrivacy(): Privacy {
    return this.updates.privacy;
  }

  /** Privacy saved in this tab: applied at once (the update log brings it to other tabs). */
  setPrivacy(p: Privacy): void {
    this.updates.privacy = p;
    this.changed();
  }

  getAccess(peerId: string): Access | undefined {
    return this.updates.getAccess(peerId);
  }

  /** Archives, locks, or undoes either; the server refuses locking without a PIN ('pin_required'). */
  async setChatFlags(peerId: string, flags: { archived?: boolean; locked?: boolean }): Promise<ChatSummary> {
    const r = await this.socket.request('chatFlags', { peerId, ...flags });
    this.chats.set(r.chat);
    this.changed();
    return r.chat;
  }

  /** The PIN was verified: locked chats' text may be loaded now. */
  pinGranted(): void {
    if (this.socket.status !== 'online') return;
    void this.chats.load();
    this.conversations.unlocked((chatId) => this.chats.get(chatId)?.locked === true);
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

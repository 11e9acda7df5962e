/**
 * The ChatClient: one per signed-in tab, outside React. It owns the socket (through
 * ChatSocket), applies the server's update log in seq order to its caches (chat list,
 * conversations, users, presence, typing), sends delivery and read receipts, and
 * drains the outbox (message-sender.ts). What the user should hear about it reports as
 * notices (notices.ts). Screens read immutable snapshots through chat-hooks.ts, on the UI side.
 * Its place in the web app: docs/architecture.md; a message's way through it: docs/message-path.md.
 */
import type { MessageContent } from '@app/e2ee';
import {
  type Access,
  type ChatFlagsChange,
  type ChatMessage,
  type ChatSummary,
  chatIdOf,
  type GlobalEvent,
  type Presence,
  type Privacy,
  type PublicUser,
  type Update,
} from '@app/protocol';
import { refreshPublicSettings, setHelpLink } from '@/lib/public-settings';
import { type Alert, Alerts } from './alerts';
import { UpdateApplier } from './apply-update';
import { AttachmentFiles } from './attachments/attachment-files';
import { SAME_ORIGIN } from './attachments/attachment-http';
import type { PreparedFile } from './attachments/prepared-file';
import type { ClientEnv, ClientEvents } from './client-env';
import { ChatList } from './conversations/chat-list';
import type { ChatListView, ConversationView } from './conversations/conversation';
import { type ConversationPaging, Conversations } from './conversations/conversations';
import { MediaPages } from './conversations/media-pages';
import { LegacyMigration } from './crypto/legacy-migration';
import { MessageCrypto } from './crypto/message-crypto';
import { Revisions } from './crypto/revisions';
import { ChatKeys } from './keys/chat-keys';
import { browserSealing } from './keys/local-keys';
import { MessageSender } from './message-sender';
import { NotificationCenter, type NotificationsView } from './notification-center';
import type { HandOver } from './outbox/hand-over';
import { OwnStatuses } from './own-status';
import { Reactions } from './reactions';
import { Receipts } from './receipts';
import { MessageSearch } from './search/message-search';
import { indexedDbSearch } from './search/search-store';
import { ChatSocket, type ConnectionStatus, type SocketHandlers } from './socket/chat-socket';
import { Typing } from './typing';
import { UpdateReplay } from './update-replay';
import { UserDirectory } from './user-directory';

export type { Alert } from './alerts';

export class ChatClient {
  readonly userId: string;
  readonly socket: ChatSocket;
  readonly users: UserDirectory;
  private readonly sender: MessageSender;
  private readonly receipts: Receipts;
  private readonly events: ClientEvents;
  private lastSeq: number | null = null;
  private welcomedBefore = false;
  private destroyed = false;
  private readonly listeners = new Set<() => void>();
  private readonly settings: NonNullable<ClientEnv['settings']>;

  private readonly chats: ChatList;
  private readonly conversations: Conversations;
  /** Paging a shown conversation: older, newer, around a message, back to the newest. */
  readonly paging: ConversationPaging;
  private readonly typing: Typing;
  /** Updates applied while a load is in flight, re-applied over its (possibly older) result. */
  private readonly replay = new UpdateReplay();

  private readonly updates: UpdateApplier;
  readonly notifications: NotificationCenter;
  private readonly alerts = new Alerts();
  /** Keys to seal and open messages, and what messages say (end-to-end encryption). */
  readonly keys: ChatKeys;
  readonly crypto: MessageCrypto;
  /** Attachments opened in this tab (downloaded, opened and checked). */
  readonly files: AttachmentFiles;
  /** Reactions to messages, and what each says. */
  readonly reactions: Reactions;
  /** Each chat's media from the server, for the photo viewer and "Media and files". */
  readonly media: MediaPages;
  /** What this browser has read, searchable (search/message-search.ts). */
  readonly search: MessageSearch;
  /** One's own messages from before encryption, re-encrypted in the background after sign-in. */
  readonly legacy: LegacyMigration;
  /** The state of own messages, for the chat list's ticks. */
  readonly own: OwnStatuses;

  constructor(userId: string, events: ClientEvents, env: ClientEnv = {}) {
    this.userId = userId;
    this.events = events;
    this.settings = env.settings ?? { refresh: refreshPublicSettings, setHelpLink };
    this.socket = new ChatSocket(this.socketHandlers(), () => this.lastSeq, env.socket);
    const changed = () => this.changed();
    this.keys = new ChatKeys(userId, this.socket, env.accountKeys, env.accountData, env.accountDataSeen);
    const attachmentHttp = env.attachmentHttp ?? SAME_ORIGIN;
    this.files = new AttachmentFiles(attachmentHttp);
    this.search = new MessageSearch({
      userId,
      socket: this.socket,
      read: (m) => this.crypto.read(m),
      chats: () => this.chats.view().chats,
      listReady: () => this.chats.ready,
      local: env.localSealing ?? browserSealing,
      store: env.searchStore ?? indexedDbSearch,
      changed,
    });
    this.crypto = new MessageCrypto(this.keys, changed, env.revisions ?? new Revisions(userId), (r, s) =>
      this.search.note(r, s),
    );
    this.reactions = new Reactions(this.keys, changed);
    this.media = new MediaPages(this.socket, changed);
    this.legacy = new LegacyMigration({
      userId,
      socket: this.socket,
      keys: this.keys,
      migrated: (m, text) => {
        this.crypto.remember(m.chatId, m.id, 0, { text }, true);
        this.updates.applyMessage(m);
      },
      changed,
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
      reactions: (chatId, msgIds, reactions) => this.reactions.page(chatId, msgIds, reactions),
      pending: (peerId) => this.sender.outbox.messagesTo(peerId),
      closed: (peerId) => this.stopTyping(peerId),
      changed,
      destroyed,
    });
    this.paging = this.conversations;
    this.updates = new UpdateApplier({
      userId,
      chats: this.chats,
      conversations: this.conversations,
      users: this.users,
      notifications: this.notifications,
      alerts: this.alerts,
      receipts: this.receipts,
      reactions: this.reactions,
      settled: (msgId) => this.sender.outbox.settled(msgId),
      noted: (m) => {
        this.own.note(m);
        this.search.updated(m);
      },
      setHelpLink: (h) => this.settings.setHelpLink(h),
      accountData: (version) => this.keys.data.refresh(version),
    });
    this.sender = new MessageSender(
      {
        userId,
        socket: this.socket,
        keys: this.keys,
        crypto: this.crypto,
        reactions: this.reactions,
        users: this.users,
        updates: this.updates,
        conversations: this.conversations,
        attachments: { http: attachmentHttp, files: this.files },
        stopTyping: (peerId) => this.stopTyping(peerId),
        notice: (n) => this.events.notice(n),
        changed,
      },
      env.outboxStore,
      env.localSealing ?? browserSealing,
    );
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
      serverError: (code, message) => events.notice({ kind: 'server-error', code, message }),
      blocked: () => events.blocked(),
      checkSession: () => events.checkSession(),
      outdated: () => events.outdated(),
    };
  }

  start(): void {
    this.socket.start();
    void this.sender.outbox.load();
  }

  destroy(): void {
    this.destroyed = true;
    this.typing.destroy();
    this.receipts.stop();
    this.sender.outbox.stop();
    this.search.stop();
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
    const listed = !w.resumed || !this.chats.ready ? this.chats.load() : Promise.resolve();
    // Once the list is loaded, older history is indexed for search in the background.
    void listed.then(() => this.search.roundDue());
    void this.legacy.sweep();
    this.conversations.welcomed(w.resumed);
    this.users.resync();
    this.receipts.flush();
    this.sender.outbox.flush();
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

  // ---- sending -----------------------------------------------------------------------

  /**
   * Queues a message in the outbox (shown at once, sent when online). A text the protocol
   * refuses (blank, too long, not storable) is not queued: returns why (the composer
   * checks first and shows it), or null once queued.
   */
  sendMessage(peerId: string, message: string | MessageContent): string | null {
    const queued = this.queueMessage(peerId, message);
    return 'problem' in queued ? queued.problem : null;
  }

  /**
   * As sendMessage; once queued, `stored` resolves when the message outlives a reload
   * (Outbox.add). With `handOver`, it is sent once that says the composer's draft let go of it.
   * A message may reply to another, or be forwarded (sealed with it: e2ee message-content.ts).
   */
  queueMessage(
    peerId: string,
    message: string | MessageContent,
    handOver?: HandOver,
  ): { problem: string } | { stored: Promise<void> } {
    return this.sender.queue(peerId, typeof message === 'string' ? { text: message } : message, handOver);
  }

  /** Queues a file with its caption (MessageSender.queueFile), maybe forwarded: why not, or `stored`. */
  sendFile(peerId: string, file: PreparedFile, caption: string, maxBytes: number, forwarded = false) {
    return this.sender.queueFile(peerId, file, caption, maxBytes, forwarded);
  }

  /** Forwards a message's text, or its file and caption, to up to a few chats (MessageSender.forward): why not, or null. */
  forwardMessage(m: ChatMessage, peerIds: readonly string[], maxBytes: number): Promise<string | null> {
    return this.sender.forward(m, peerIds, maxBytes);
  }

  /** Reacts to a message (the same emoji again, or null, takes the reaction back). */
  react(m: ChatMessage, emoji: string | null): Promise<void> {
    return this.sender.react(m, emoji);
  }

  /** Sends a failed message again (it waits in the outbox until the user retries or deletes it). */
  retryMessage(msgId: string): void {
    this.sender.outbox.retry(msgId);
  }

  /** Cancels a message whose file is still uploading (Outbox.cancel). */
  cancelUpload(msgId: string): void {
    this.sender.outbox.cancel(msgId);
  }

  /** Deletes a failed message from the outbox and the conversation (it never reached the server). */
  discardMessage(msgId: string): void {
    this.sender.outbox.discard(msgId);
  }

  /** Seals and sends an edit (a text the protocol refuses throws its reason). */
  editMessage(m: ChatMessage, text: string): Promise<void> {
    return this.sender.edit(m, text);
  }

  deleteMessage(m: ChatMessage): Promise<void> {
    return this.sender.delete(m);
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

  /**
   * Archives, locks, pins, mutes or marks unread, or undoes any (protocol chat-flags.ts);
   * the server refuses locking without a PIN ('pin_required') and a fourth pin.
   */
  async setChatFlags(peerId: string, flags: ChatFlagsChange): Promise<ChatSummary> {
    const r = await this.socket.request('chatFlags', { peerId, ...flags });
    this.chats.set(r.chat);
    this.changed();
    return r.chat;
  }

  /** Marks the chat read from its menu: its messages read (receipts as the settings say), no longer marked unread. */
  async markChatRead(peerId: string): Promise<void> {
    await this.socket.request('read', { peerId });
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

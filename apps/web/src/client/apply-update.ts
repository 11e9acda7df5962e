/**
 * How the server's updates change a ChatClient's caches: the user's update log (in seq
 * order, each entry the full new state) and the global events every user hears. Also
 * keeps what the log says of the user's privacy and of whom they may message.
 */
import {
  type Access,
  type ChatMessage,
  type ChatSummary,
  type GlobalEvent,
  isMuted,
  isWithheld,
  PRIVACY_DEFAULTS,
  type Privacy,
  type PublicUser,
  type Reaction,
  summaryAfter,
  type Update,
} from '@app/protocol';
import type { Alerts } from './alerts';
import type { ChatList } from './conversations/chat-list';
import { peerOfMessage } from './conversations/conversation';
import type { Conversations } from './conversations/conversations';
import type { NotificationCenter } from './notification-center';
import type { Reactions } from './reactions';
import type { Receipts } from './receipts';
import type { UserDirectory } from './user-directory';

export interface ApplyDeps {
  userId: string;
  chats: ChatList;
  conversations: Conversations;
  users: UserDirectory;
  notifications: NotificationCenter;
  alerts: Alerts;
  receipts: Receipts;
  reactions: Reactions;
  /** One of our messages is on the server: the outbox lets go of it. */
  settled(msgId: string): void;
  /** A message as the server has it now (the chat list's ticks keep the own ones' state). */
  noted(m: ChatMessage): void;
  setHelpLink(helpLink: string | null): void;
  /** Another tab or browser of the user wrote this version of the account data. */
  accountData(version: number): void;
}

/** Exhaustiveness at compile time; at run time an update of a newer server is skipped. */
function assertNever(x: never): void {
  console.warn('Unknown update', x);
}

export class UpdateApplier {
  /** The user's own privacy settings, from the welcome and the update log. */
  privacy: Privacy = { ...PRIVACY_DEFAULTS };
  /** Whether the user may message each peer (from history and the update log). */
  private readonly access = new Map<string, Access>();
  private readonly d: ApplyDeps;

  constructor(deps: ApplyDeps) {
    this.d = deps;
  }

  getAccess(peerId: string): Access | undefined {
    return this.access.get(peerId);
  }

  setAccess(peerId: string, access: Access): void {
    this.access.set(peerId, access);
    this.d.conversations.get(peerId)?.touch();
  }

  /** An entry of the update log. */
  apply(update: Update): void {
    const { chats, notifications } = this.d;
    switch (update.kind) {
      case 'message':
        // A new message carries the summary it made: first, so the chat's lock is known.
        if (update.chat) this.applySummary(summaryAfter(update.chat, update.message));
        this.applyMessage(update.message);
        return;
      case 'chat':
        this.applySummary(update.chat);
        return;
      case 'chatRemoved':
        chats.delete(update.chatId);
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
        notifications.apply(update);
        if (update.notification.type === 'request' && !update.notification.read) {
          this.d.alerts.tell({ kind: 'request', notification: update.notification });
        }
        return;
      case 'notificationRemoved':
      case 'notificationsSeen':
        notifications.apply(update);
        return;
      case 'accountData':
        this.d.accountData(update.version);
        return;
      case 'reaction':
        // A reaction to the user's message carries their summary (marked unread).
        if (update.chat) this.applySummary(update.chat);
        this.applyReaction(update.reaction);
        return;
      default:
        assertNever(update);
    }
  }

  /** A global event; returns whether the client's own views changed. */
  global(e: GlobalEvent): boolean {
    switch (e.kind) {
      case 'notification':
        this.d.notifications.apply(e);
        if (e.notification.type === 'admin') this.d.alerts.tell({ kind: 'broadcast', notification: e.notification });
        return false;
      case 'notificationRemoved':
        this.d.notifications.apply(e);
        return false;
      case 'peer':
        this.applyPeer(e.user);
        return true;
      case 'settings':
        this.d.setHelpLink(e.helpLink);
        return false;
      default:
        assertNever(e);
        return true;
    }
  }

  private applySummary(chat: ChatSummary): void {
    this.d.chats.set(chat);
    if (chat.peer) this.d.users.remember(chat.peer);
  }

  private applyPeer(user: PublicUser): void {
    this.d.users.remember(user);
    this.d.chats.applyPeer(user);
    this.d.conversations.touch(user.id);
  }

  /** Acknowledges a message that reached this client (sent → delivered). */
  received(m: ChatMessage): void {
    if (m.recipientId === this.d.userId && m.status === 'sent' && !m.deleted) this.d.receipts.delivered(m.chatId, m.id);
  }

  /**
   * A reaction as it is now. The peer's new reaction is activity: a browser notification
   * and the chime, unless the chat is muted, or the reaction is to the peer's own message,
   * or it is an old one replayed (more than a minute old).
   */
  private applyReaction(r: Reaction): void {
    this.d.reactions.apply(r);
    this.d.conversations.touchChat(r.chatId);
    if (r.ct === null || r.userId === this.d.userId || Date.now() - r.at > 60_000) return;
    // Only the peer of that chat reacts in it (whatever the server says).
    if (!r.chatId.split('_').includes(r.userId)) return;
    const summary = this.d.chats.get(r.chatId);
    if (summary && isMuted(summary, Date.now())) return;
    const message = summary ? this.d.conversations.get(summary.peerId)?.find(r.msgId) : undefined;
    if (message && message.senderId !== this.d.userId) return;
    this.d.alerts.tell({ kind: 'reaction', reaction: r, locked: summary?.locked === true });
  }

  /** A message of a history page: acknowledged if it is new to us, settled if it is ours. */
  seen(m: ChatMessage): void {
    this.d.noted(m);
    if (m.senderId === this.d.userId) this.d.settled(m.id);
    else this.received(m);
  }

  /** A message as the server has it now (new, edited, deleted, delivered, read). */
  applyMessage(m: ChatMessage): void {
    const me = this.d.userId;
    this.d.noted(m);
    if (m.senderId === me) this.d.settled(m.id);
    const fresh = m.recipientId === me && m.status === 'sent' && !m.deleted && !m.edited;
    const conv = this.d.conversations.get(peerOfMessage(m, me));
    const summary = this.d.chats.get(m.chatId);
    // A muted chat raises nothing: no sound, no browser notification.
    if (fresh && !conv?.has(m.id) && !(summary && isMuted(summary, Date.now()))) {
      this.d.alerts.tell({
        kind: 'message',
        message: m,
        locked: summary?.locked === true || isWithheld(m),
      });
    }
    this.received(m);
    conv?.upsert(m);
  }
}

/**
 * The answers to a socket's requests: one handler per request kind, in a table the
 * compiler checks against the protocol (every kind has one, each returns that kind's
 * result). A write returns what it committed to the update log with its result, and
 * cannot publish it itself: the dispatch (dispatch.ts), which paces writes and calls the
 * handler, publishes it, then sends the result. A handler refuses by throwing a
 * FrameError (or a store's ChatError / RevokedError).
 */
import {
  CLOSE,
  chatIdOf,
  HISTORY_PAGE,
  LEGACY_PAGE,
  type RequestFrame,
  type ResultData,
  SOCIAL_MSG,
  USERS_PAGE,
  type WsErrorCode,
} from '@app/protocol';
import { ChatError, type LoggedUpdate, RevokedError } from '../storage/messages/chat-store.ts';
import type { RealtimeDeps } from './deps.ts';
import { type PrivacyView, viewChat, viewMessage, viewPresence } from './privacy-view.ts';

/** A refusal the client is told about with its code. */
export class FrameError extends Error {
  readonly code: WsErrorCode;
  constructor(code: WsErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/**
 * How a failed request is answered: the socket closes when its account or session is
 * gone; a refusal is told with its code; anything else is an internal error (logged).
 */
export function refusalOf(e: unknown): { close: number; reason: string } | { code: WsErrorCode; message: string } {
  if (e instanceof RevokedError)
    return { close: e.why === 'blocked' ? CLOSE.blocked : CLOSE.sessionEnded, reason: e.why };
  if (e instanceof ChatError || e instanceof FrameError) return { code: e.code, message: e.message };
  return { code: 'internal', message: 'Something went wrong. Please try again.' };
}

/** What a handler may know and change of the socket it answers. */
export interface SocketSession {
  readonly userId: string;
  readonly tokenHash: string;
  /** All but `publish`: what a write committed is published by the dispatch. */
  readonly deps: Omit<RealtimeDeps, 'publish'>;
  /** What this socket may see now. */
  view(): PrivacyView;
  /** Whether the user has locked this chat. */
  isLocked(chatId: string): boolean;
  setLocked(chatId: string, locked: boolean): void;
  /** Whether this session holds a PIN grant (it may have been given on another process). */
  ensureGranted(): Promise<boolean>;
  /** Replaces the users whose presence is pushed to this socket. */
  watch(userIds: ReadonlySet<string>): void;
}

type Kind = RequestFrame['t'];
type RequestOf<K extends Kind> = Extract<RequestFrame, { t: K }>;

/** The kinds that write to the update log. */
const WRITES = [
  'send',
  'edit',
  'migrate',
  'delete',
  'delivered',
  'read',
  'chatFlags',
  'notificationsSeen',
  'respondRequest',
  'react',
] as const satisfies readonly Kind[];
type Write = (typeof WRITES)[number];
export const WRITE_KINDS: ReadonlySet<Kind> = new Set(WRITES);

/**
 * A request's answer: the update-log entries it committed (none for a read), and its
 * result as the socket sees it once they are published (a socket's own updates can
 * change what it may see).
 */
export interface Answer<R> {
  updates: LoggedUpdate[];
  result(): R;
}

/** A write answers with what it committed; a read with its result. */
type Handler<K extends Kind> = (
  s: SocketSession,
  frame: RequestOf<K>,
  now: number,
) => Promise<K extends Write ? Answer<ResultData[K]> : ResultData[K]>;

/** Only the two participants may touch a chat. */
function ownChat(s: SocketSession, chatId: string): void {
  const [a, b] = chatId.split('_');
  if (a !== s.userId && b !== s.userId) throw new FrameError('not_found', 'Chat not found');
}

/** A locked chat shows only under a PIN grant. */
async function assertOpen(s: SocketSession, chatId: string): Promise<void> {
  if (s.isLocked(chatId) && !(await s.ensureGranted())) throw new FrameError('locked', SOCIAL_MSG.chatLocked);
}

export const handlers: { [K in Kind]: Handler<K> } = {
  async send(s, f, now) {
    if (f.to === s.userId) throw new FrameError('forbidden', 'You cannot message yourself');
    // Bound first (a retried send binds them again): a blob is readable by the peer only
    // once its message is there (AttachmentStore.readable).
    if (f.attachments) await s.deps.attachments.bind(s.userId, f.to, f.msgId, f.attachments);
    const r = await s.deps.chat.send(s.userId, f.to, f.msgId, { ct: f.ct, chatKey: f.chatKey }, now, s.tokenHash);
    return {
      updates: r.updates,
      result: () => ('request' in r ? { request: r.request } : { message: viewMessage(s.view(), r.message) }),
    };
  },

  async edit(s, f, now) {
    ownChat(s, f.chatId);
    const r = await s.deps.chat.edit(s.userId, f.chatId, f.msgId, f.ct, now, s.tokenHash);
    return { updates: r.updates, result: () => ({ message: viewMessage(s.view(), r.message) }) };
  },

  /** One's own messages from before encryption, re-encrypted (the store checks sender and key). */
  async migrate(s, f, now) {
    ownChat(s, f.chatId);
    const r = await s.deps.chat.migrate(s.userId, f.chatId, f.items, now, s.tokenHash, f.chatKey);
    return { updates: r.updates, result: () => ({ migrated: r.migrated }) };
  },

  /** What is left of one's own messages in the clear (the browser re-encrypts them after sign-in). */
  async legacyOwn(s, f) {
    return s.deps.chat.legacyOwn(s.userId, f.after, LEGACY_PAGE);
  },

  /** Anyone's public keys: they are what one seals chat keys to (no secret in them). */
  async keys(s, f) {
    return { keys: await s.deps.chat.publicKeys([...new Set(f.userIds)]) };
  },

  /** A chat's key envelopes, for its participants (each opens only their own seal). */
  async chatKeys(s, f) {
    ownChat(s, f.chatId);
    return { chatKeys: await s.deps.chat.chatKeys(f.chatId) };
  },

  async delete(s, f, now) {
    ownChat(s, f.chatId);
    const r = await s.deps.chat.delete(s.userId, f.chatId, f.msgId, f.ct ?? null, now, s.tokenHash);
    await s.deps.attachments.removeForMessage(f.chatId, f.msgId);
    return { updates: r.updates, result: () => ({ message: viewMessage(s.view(), r.message) }) };
  },

  async delivered(s, f, now) {
    ownChat(s, f.chatId);
    const updates = await s.deps.chat.delivered(s.userId, f.chatId, f.msgIds, now, s.tokenHash);
    // Each message's update goes to both participants.
    return { updates, result: () => ({ count: updates.length / 2 }) };
  },

  async read(s, f, now) {
    const updates = await s.deps.chat.read(s.userId, f.peerId, now, s.tokenHash);
    return { updates, result: () => ({ count: updates.filter((u) => u.update.kind === 'message').length / 2 }) };
  },

  async history(s, f) {
    const chatId = chatIdOf(s.userId, f.peerId);
    await assertOpen(s, chatId);
    const where = f.before ? { before: f.before } : f.after ? { after: f.after } : f.around ? { around: f.around } : {};
    const page = await s.deps.chat.history(chatId, f.limit ?? HISTORY_PAGE, where, f.media === true);
    const peer = await s.deps.chat.publicUser(f.peerId);
    const access = f.peerId === s.userId ? { state: 'open' as const } : await s.deps.social.access(s.userId, f.peerId);
    const view = s.view();
    const reactions = await s.deps.chat.reactions(
      chatId,
      page.messages.map((m) => m.id),
    );
    return {
      messages: page.messages.map((m) => viewMessage(view, m)),
      hasMore: page.hasMore,
      hasNewer: page.hasNewer,
      peer,
      access,
      ...(reactions.length > 0 ? { reactions } : {}),
    };
  },

  /** One's reaction to a message of one's own chat (a locked one only under a PIN grant). */
  async react(s, f, now) {
    ownChat(s, f.chatId);
    await assertOpen(s, f.chatId);
    const r = await s.deps.chat.react(s.userId, f.chatId, f.msgId, f.ct, now, s.tokenHash);
    return { updates: r.updates, result: () => ({ reaction: r.reaction }) };
  },

  async chats(s) {
    const view = s.view();
    return { chats: (await s.deps.chat.chats(s.userId)).map((c) => viewChat(view, c)) };
  },

  async users(s, f) {
    const users = await s.deps.chat.searchUsers(s.userId, f.query, f.after, USERS_PAGE);
    const last = users.at(-1);
    const online = await s.deps.presence.online(users.map((u) => u.id));
    return {
      users: users.map((u) => ({ ...u, online: online.has(u.id) })),
      next: users.length === USERS_PAGE && last ? last.username.toLowerCase() : null,
    };
  },

  async user(s, f) {
    const user = await s.deps.chat.publicUser(f.userId);
    if (!user) throw new FrameError('not_found', 'User not found');
    return { user, presence: viewPresence(s.view(), await s.deps.presence.get(f.userId)) };
  },

  async watch(s, f) {
    const watched = new Set(f.userIds);
    s.watch(watched);
    const presence = await Promise.all([...watched].map((u) => s.deps.presence.get(u)));
    const view = s.view();
    return { presence: presence.map((p) => viewPresence(view, p)) };
  },

  async chatFlags(s, f, now) {
    // Unlocking shows the chat again: only under a PIN grant.
    if (f.locked === false) await assertOpen(s, chatIdOf(s.userId, f.peerId));
    const r = await s.deps.social.setChatFlags(s.userId, f.peerId, f, now, s.tokenHash);
    s.setLocked(r.chat.chatId, r.chat.locked);
    return { updates: r.updates, result: () => ({ chat: viewChat(s.view(), r.chat) }) };
  },

  notifications: (s) => s.deps.notices.notifications(s.userId),

  async notificationsSeen(s, _f, now) {
    const updates = await s.deps.notices.markSeen(s.userId, now, s.tokenHash);
    return { updates, result: () => ({ unseen: 0 }) };
  },

  async respondRequest(s, f, now) {
    const updates = await s.deps.notices.respondRequest(s.userId, f.notificationId, f.accept, now, s.tokenHash);
    return { updates, result: () => ({ accepted: f.accept }) };
  },
};

const NOTHING: LoggedUpdate[] = [];

/** Runs the handler of `frame`'s kind: a read's result is an answer that committed nothing. */
export async function handle<K extends Kind>(
  s: SocketSession,
  frame: RequestOf<K>,
  now: number,
): Promise<Answer<ResultData[K]>> {
  const out = await (handlers[frame.t] as Handler<K>)(s, frame, now);
  if (WRITE_KINDS.has(frame.t)) return out as Answer<ResultData[K]>;
  return { updates: NOTHING, result: () => out as ResultData[K] };
}

/**
 * Messages, chat summaries and the per-user update log. Every change runs in one
 * transaction together with its log entries, so a client that resumes from its last
 * seq sees exactly the committed changes, in order.
 */
import {
  type ChatKeyEnvelopeWire,
  type ChatMessage,
  type ChatSummary,
  chatIdOf,
  type PublicUser,
  peerOf,
  UPDATE_LOG_KEEP,
  type Update,
} from '@app/protocol';
import type { Kysely } from 'kysely';
import { KeyStore } from '../accounts/key-store.ts';
import { type Db, SEND_CONNECTIONS } from '../db.ts';
import { GroupCommit, type GroupCommitOptions } from '../group-commit.ts';
import { migrateLegacy, ownLegacy } from '../maintenance/legacy-migrate.ts';
import { lockPeople } from '../people-locks.ts';
import type { Tx } from '../program.ts';
import type { Database } from '../schema.ts';
import { followsOn } from './backlog.ts';
import { acceptSealedEdit, acceptTombstone, chatKeysOf } from './chat-keys.ts';
import {
  appendLog,
  ChatError,
  joinedUser,
  LAST_JOINED,
  type LoggedUpdate,
  publicUserOf,
  summaryOf,
  toMessage,
  toSummary,
} from './chat-rows.ts';
import { type HistoryPage, type HistoryWhere, historyPage } from './history.ts';
import { withTexts } from './log-refs.ts';
import { scrubDeletedFromLog } from './log-scrub.ts';
import { react, reactionsOf } from './reactions.ts';
import { pgSendBatcher } from './send-batch.ts';
import { type SendInput, type SendResult, sendProgram } from './send-program.ts';
import { refreshSummaries } from './summaries.ts';
import { searchUsers } from './user-search.ts';

/** The message `userId` may change: theirs, and not deleted. */
function ownMessage(current: ChatMessage | null, userId: string): ChatMessage {
  if (!current || (current.senderId !== userId && current.recipientId !== userId)) {
    throw new ChatError('not_found', 'Message not found');
  }
  if (current.senderId !== userId) throw new ChatError('forbidden', 'Only the sender can change a message');
  if (current.deleted) throw new ChatError('conflict', 'This message was deleted');
  return current;
}

export { RevokedError } from '../people-locks.ts';
export { ChatError, type LoggedUpdate, payloadOf, toMessage, toPublicUser } from './chat-rows.ts';

/**
 * How an engine commits sends: SQLite, one writer, runs groups of them synchronously in
 * shared transactions; PostgreSQL writes groups set-based (send-batch.ts), several groups
 * at once, each on a pipelined connection of its own (db.ts: sendPool).
 */
export function chatWrites(db: Db, onCommit?: (jobs: number) => void): GroupCommitOptions<SendInput> {
  // A chat's sends commit in the order they came (a socket sends without waiting, see realtime/dispatch.ts).
  const chainOf = (s: SendInput) => chatIdOf(s.senderId, s.recipientId);
  if (db.sendPool)
    return { maxBatch: 256, concurrency: SEND_CONNECTIONS, batcher: pgSendBatcher(db.sendPool), chainOf, onCommit };
  return db.sqlite ? { sqlite: db.sqlite, chainOf, onCommit } : { chainOf, onCommit };
}

export class ChatStore {
  readonly db: Kysely<Database>;
  /** Sends are committed in groups (see group-commit.ts). */
  readonly writes: GroupCommit<SendInput>;

  private readonly keyStore: KeyStore;

  constructor(db: Kysely<Database>, writes: GroupCommitOptions<SendInput> = {}) {
    this.db = db;
    this.writes = new GroupCommit(db, writes);
    this.keyStore = new KeyStore(db);
  }

  // ---- reading ---------------------------------------------------------------

  publicUser(id: string, tx: Tx = this.db): Promise<PublicUser | null> {
    return publicUserOf(tx, id);
  }

  /** The user's chat list, newest first, with each peer's public profile (null if deleted). */
  async chats(userId: string): Promise<ChatSummary[]> {
    const rows = await this.db
      .selectFrom('user_chats as c')
      .leftJoin('users as u', 'u.id', 'c.peer_id')
      .leftJoin('messages as m', (j) => j.onRef('m.chat_id', '=', 'c.chat_id').onRef('m.id', '=', 'c.last_id'))
      .selectAll('c')
      .select(['u.id as u_id', 'u.username', 'u.name', 'u.profile_pic', 'u.verified', ...LAST_JOINED])
      .where('c.user_id', '=', userId)
      .orderBy('c.timestamp', 'desc')
      .execute();
    return rows.map((r) => toSummary(r, joinedUser(r)));
  }

  /**
   * A page of the chat, oldest first: the newest, or before, after or around a position; or
   * of its media only (history.ts).
   */
  history(chatId: string, limit: number, where: HistoryWhere = {}, media = false): Promise<HistoryPage> {
    return historyPage(this.db, chatId, limit, where, media);
  }

  async message(chatId: string, id: string, tx: Tx = this.db): Promise<ChatMessage | null> {
    const r = await tx
      .selectFrom('messages')
      .selectAll()
      .where('chat_id', '=', chatId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r ? toMessage(r) : null;
  }

  /** Update-log entries after `seq`, or null when some of them were already pruned. */
  async updatesSince(userId: string, seq: number): Promise<LoggedUpdate[] | null> {
    const user = await this.db.selectFrom('users').select('update_seq').where('id', '=', userId).executeTakeFirst();
    if (!user) return null;
    const current = Number(user.update_seq);
    if (seq > current) return null;
    if (seq === current) return [];
    const rows = await this.db
      .selectFrom('user_updates')
      .select(['seq', 'payload'])
      .where('user_id', '=', userId)
      .where('seq', '>', seq)
      .orderBy('seq', 'asc')
      .execute();
    if (!followsOn(seq, current, rows)) return null;
    const updates = await withTexts(
      this.db,
      rows.map((r) => JSON.parse(r.payload) as Update),
    );
    return rows.map((r, i) => ({ userId, seq: Number(r.seq), update: updates[i] as Update }));
  }

  async currentSeq(userId: string): Promise<number> {
    const r = await this.db.selectFrom('users').select('update_seq').where('id', '=', userId).executeTakeFirst();
    return r ? Number(r.update_seq) : 0;
  }

  // ---- writing ---------------------------------------------------------------

  /**
   * Stores a new message from `senderId` to `recipientId` and updates both summaries.
   * A retry with the same message id is answered with the stored message and changes
   * nothing. To a user who takes messages from contacts only, the first message of a
   * stranger becomes a contact request instead (see social-store.ts).
   */
  send(
    senderId: string,
    recipientId: string,
    msgId: string,
    sealed: { ct: string; chatKey?: ChatKeyEnvelopeWire | undefined },
    now: number,
    session: string | null = null,
  ): Promise<SendResult> {
    const input: SendInput = { senderId, recipientId, msgId, sealed, now, session };
    return this.writes.program(() => sendProgram(input), input);
  }

  /**
   * First step of a change in a chat made by `userId` (from `session`, when it comes from
   * a socket): both participants locked against deletion until it commits; refused if
   * `userId` is gone or blocked or the session has ended (lockPeople).
   */
  private async participants(tx: Tx, userId: string, chatId: string, session: string | null, now: number) {
    await lockPeople(tx, userId, peerOf(chatId, userId), session, now);
  }

  /** Rewrites one of the sender's own messages (edit or delete) and the summaries it heads. */
  private async rewrite(
    userId: string,
    chatId: string,
    msgId: string,
    change: { ct: string | null; edited: boolean; deleted: boolean },
    now: number,
    session: string | null,
  ): Promise<{ message: ChatMessage; updates: LoggedUpdate[] }> {
    return this.db.transaction().execute(async (tx) => {
      await this.participants(tx, userId, chatId, session, now);
      const current = ownMessage(await this.message(chatId, msgId, tx), userId);
      // An edit is the next revision under the chat's current key; a deletion replaces the
      // ciphertext with the sender's tombstone, the next revision too (none in a keyless chat).
      const rev = change.ct === null ? current.rev : current.rev + 1;
      if (change.deleted) await acceptTombstone(tx, chatId, change.ct, rev);
      else if (change.ct !== null) await acceptSealedEdit(tx, chatId, change.ct, rev);
      const text = change.ct ?? '';
      const sealed: 0 | 1 = change.ct !== null || current.ct !== null ? 1 : 0;
      await tx
        .updateTable('messages')
        .set({
          text,
          sealed,
          rev,
          status: 'sent',
          edited: change.edited ? 1 : 0,
          deleted: change.deleted ? 1 : 0,
          delivered_at: null,
          read_at: null,
        })
        .where('chat_id', '=', chatId)
        .where('id', '=', msgId)
        .execute();
      const message = (await this.message(chatId, msgId, tx)) as ChatMessage;
      const newest = await tx
        .selectFrom('messages')
        .select('id')
        .where('chat_id', '=', chatId)
        .orderBy('timestamp', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      const entries: { userId: string; update: Update }[] = [
        { userId: current.senderId, update: { kind: 'message', message } },
        { userId: current.recipientId, update: { kind: 'message', message } },
      ];
      if (newest?.id === msgId) {
        const last = { last_rev: rev, last_sealed: sealed, last_deleted: change.deleted ? 1 : 0 } as const;
        entries.push(...(await refreshSummaries(tx, chatId, [current.senderId, current.recipientId], last)));
      }
      if (change.deleted) {
        await scrubDeletedFromLog(tx, message);
        await tx.deleteFrom('reactions').where('chat_id', '=', chatId).where('msg_id', '=', msgId).execute();
      }
      return { message, updates: await appendLog(tx, entries, now) };
    });
  }

  /** One's own messages from before encryption, re-encrypted (see legacy-migrate.ts). */
  migrate(
    userId: string,
    chatId: string,
    items: readonly { msgId: string; ct: string }[],
    now: number,
    session: string | null = null,
    chatKey?: ChatKeyEnvelopeWire,
  ) {
    return migrateLegacy(this.db, userId, chatId, items, now, session, chatKey);
  }

  /** A page of one's own messages still in the clear, and how many there are (see legacy-migrate.ts). */
  legacyOwn(userId: string, after: { chatId: string; msgId: string } | undefined, limit: number) {
    return ownLegacy(this.db, userId, after, limit);
  }

  edit(userId: string, chatId: string, msgId: string, ct: string, now: number, session: string | null = null) {
    return this.rewrite(userId, chatId, msgId, { ct, edited: true, deleted: false }, now, session);
  }

  /** `tombstone`: the sender's sealed deletion (null only in a chat without a key, see acceptTombstone). */
  delete(
    userId: string,
    chatId: string,
    msgId: string,
    tombstone: string | null,
    now: number,
    session: string | null = null,
  ) {
    return this.rewrite(userId, chatId, msgId, { ct: tombstone, edited: false, deleted: true }, now, session);
  }

  /** Reacts to a message of `chatId` (null: takes the reaction back), see reactions.ts. */
  react(userId: string, chatId: string, msgId: string, ct: string | null, now: number, session: string | null = null) {
    return react(this.db, userId, chatId, msgId, ct, now, session);
  }

  /** The reactions to these messages (a history page's). */
  reactions(chatId: string, msgIds: readonly string[]) {
    return reactionsOf(this.db, chatId, msgIds);
  }

  /** The public keys of these users (those who have keys). */
  publicKeys(userIds: readonly string[]) {
    return this.keyStore.publicKeys(userIds);
  }

  /** Every key envelope of a chat, oldest first. */
  chatKeys(chatId: string) {
    return chatKeysOf(this.db, chatId);
  }

  /** The recipient's client has these messages: sent → delivered. */
  async delivered(
    userId: string,
    chatId: string,
    msgIds: string[],
    now: number,
    session: string | null = null,
  ): Promise<LoggedUpdate[]> {
    return this.db.transaction().execute(async (tx) => {
      await this.participants(tx, userId, chatId, session, now);
      const rows = await tx
        .updateTable('messages')
        .set({ status: 'delivered', delivered_at: now })
        .where('chat_id', '=', chatId)
        .where('recipient_id', '=', userId)
        .where('status', '=', 'sent')
        .where('id', 'in', msgIds)
        .returningAll()
        .execute();
      const entries = rows.flatMap((r) => {
        const message = toMessage(r);
        return [
          { userId: message.senderId, update: { kind: 'message' as const, message } },
          { userId: message.recipientId, update: { kind: 'message' as const, message } },
        ];
      });
      return appendLog(tx, entries, now);
    });
  }

  /** The recipient has the chat open (or marked it read): everything from the peer is read, the unread count 0 and no longer marked unread. */
  async read(userId: string, peerId: string, now: number, session: string | null = null): Promise<LoggedUpdate[]> {
    const chatId = chatIdOf(userId, peerId);
    return this.db.transaction().execute(async (tx) => {
      await this.participants(tx, userId, chatId, session, now);
      // With read receipts off the reading is never recorded: what was only sent becomes
      // delivered (the reader's client has it), and nothing becomes read.
      const receipts = await tx
        .selectFrom('user_settings')
        .select('read_receipts')
        .where('user_id', '=', userId)
        .executeTakeFirst();
      const rows =
        (receipts?.read_receipts ?? 1) === 1
          ? await tx
              .updateTable('messages')
              .set((eb) => ({
                status: 'read',
                read_at: now,
                delivered_at: eb.fn.coalesce('delivered_at', eb.val(now)),
              }))
              .where('chat_id', '=', chatId)
              .where('recipient_id', '=', userId)
              .where('status', '!=', 'read')
              .returningAll()
              .execute()
          : await tx
              .updateTable('messages')
              .set({ status: 'delivered', delivered_at: now })
              .where('chat_id', '=', chatId)
              .where('recipient_id', '=', userId)
              .where('status', '=', 'sent')
              .returningAll()
              .execute();
      const entries: { userId: string; update: Update }[] = rows.flatMap((r) => {
        const message = toMessage(r);
        return [
          { userId: message.senderId, update: { kind: 'message' as const, message } },
          { userId: message.recipientId, update: { kind: 'message' as const, message } },
        ];
      });
      const reset = await tx
        .updateTable('user_chats')
        .set({ unread_count: 0, marked_unread: 0 })
        .where('user_id', '=', userId)
        .where('chat_id', '=', chatId)
        .where((eb) => eb.or([eb('unread_count', '>', 0), eb('marked_unread', '=', 1)]))
        .executeTakeFirst();
      if (Number(reset.numUpdatedRows) > 0 || rows.length > 0) {
        const chat = await summaryOf(tx, userId, chatId);
        if (chat) entries.push({ userId, update: { kind: 'chat', chat } });
      }
      return appendLog(tx, entries, now);
    });
  }

  /** Users other than `me` whose handle contains `query` (user-search.ts). */
  searchUsers(me: string, query: string, after: string | undefined, limit: number): Promise<PublicUser[]> {
    return searchUsers(this.db, me, query, after, limit);
  }

  /** Drops log entries beyond the newest UPDATE_LOG_KEEP of a user. */
  async pruneLog(userId: string): Promise<void> {
    const current = await this.currentSeq(userId);
    if (current <= UPDATE_LOG_KEEP) return;
    await this.db
      .deleteFrom('user_updates')
      .where('user_id', '=', userId)
      .where('seq', '<=', current - UPDATE_LOG_KEEP)
      .execute();
  }
}

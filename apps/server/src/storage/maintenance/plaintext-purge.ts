/**
 * `npm run admin -- purge-plaintext` (docs/e2ee.md, step 4): what is left of message
 * text from before end-to-end encryption, for users who never came back to re-encrypt it,
 * is removed, then the database is compacted so no old copy survives in its files.
 *
 * In one transaction:
 * - an unsealed message loses its text as a deletion does (text '', deleted, not edited);
 * - an unsealed summary shows a deleted message, as a deletion leaves it (with `before`:
 *   when the chat's newest message is purged);
 * - an unsealed request's first message is blanked (info notifications are the server's
 *   own text and stay);
 * - the whole update log is emptied (entries carry `legacyText`, and summaries and requests
 *   in the clear), and every user's seq moves on by one: a client resuming from any seq
 *   then finds a gap, is not resumed (ChatStore.updatesSince returns null) and reloads its
 *   chats, conversations and notifications; a socket open meanwhile is closed as "too far
 *   behind" at its next update (UpdateStream.catchUp) and reloads the same way.
 * `before` (ms) limits the rows to those created before it; the log is emptied anyway.
 *
 * Then compact(): SQLite rewrites the file (VACUUM, with secure_delete on, as the server
 * opens it since, see db.ts) and truncates the WAL, which still holds the old pages;
 * PostgreSQL rewrites the tables that held text (VACUUM FULL).
 */
import { DELETED_TEXT } from '@app/protocol';
import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import type { Db } from '../db.ts';
import type { Database } from '../schema.ts';

export interface PlaintextCounts {
  messages: number;
  summaries: number;
  requests: number;
  /** Entries of the update log (all of them). */
  updates: number;
}

/** A message still in the clear: unsealed, and not already a deletion with its text gone. */
const legacyMessage = (before: number | null) => (eb: ExpressionBuilder<Database, 'messages'>) =>
  eb.and([
    eb('sealed', '=', 0),
    eb.or([eb('deleted', '=', 0), eb('text', '<>', '')]),
    ...(before === null ? [] : [eb('timestamp', '<', before)]),
  ]);

/**
 * A summary showing text in the clear (a summary from before that says "deleted" holds
 * none). With `before`: one whose newest message is purged, that is, from before `before`
 * (its timestamp is that message's), or in a chat whose messages are all from before it
 * with one in the clear among them (in case a timestamp was moved on past it). A summary
 * of a message deleted since with its sender's account keeps its date: it is purged only
 * with no `before`, or one after it.
 */
const legacySummary = (before: number | null) => (eb: ExpressionBuilder<Database, 'user_chats'>) => {
  const messages = () => eb.selectFrom('messages as m').select('m.id').whereRef('m.chat_id', '=', 'user_chats.chat_id');
  return eb.and([
    eb('last_sealed', '=', 0),
    eb('last_deleted', '=', 0),
    eb('last_message', 'is not', null),
    eb('last_message', 'not in', ['', DELETED_TEXT]),
    ...(before === null
      ? []
      : [
          eb.or([
            eb('timestamp', '<', before),
            eb.and([
              eb.not(eb.exists(messages().where('m.timestamp', '>=', before))),
              eb.exists(messages().where('m.sealed', '=', 0)),
            ]),
          ]),
        ]),
  ]);
};

/** A contact request whose first message is in the clear. */
const legacyRequest = (before: number | null) => (eb: ExpressionBuilder<Database, 'user_notifications'>) =>
  eb.and([
    eb('type', '=', 'request'),
    eb('sealed', '=', 0),
    eb('message', '<>', ''),
    ...(before === null ? [] : [eb('timestamp', '<', before)]),
  ]);

/** What a purge would remove now (for the operator's confirmation). */
export async function countPlaintext(db: Kysely<Database>, before: number | null): Promise<PlaintextCounts> {
  const [messages, summaries, requests, updates] = await Promise.all([
    db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(legacyMessage(before))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('user_chats')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(legacySummary(before))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('user_notifications')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(legacyRequest(before))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('user_updates')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return {
    messages: Number(messages.n),
    summaries: Number(summaries.n),
    requests: Number(requests.n),
    updates: Number(updates.n),
  };
}

/** Removes the plaintext (see the top of this file), in one transaction; what it removed. */
export async function purgePlaintext(db: Kysely<Database>, before: number | null): Promise<PlaintextCounts> {
  return db.transaction().execute(async (tx) => {
    // Summaries first: which to purge depends on the messages kept (the message purge keeps them anyway).
    const summaries = await tx
      .updateTable('user_chats')
      .set({ last_message: '', last_deleted: 1 })
      .where(legacySummary(before))
      .executeTakeFirst();
    const messages = await tx
      .updateTable('messages')
      .set({ text: '', deleted: 1, edited: 0 })
      .where(legacyMessage(before))
      .executeTakeFirst();
    const requests = await tx
      .updateTable('user_notifications')
      .set({ message: '' })
      .where(legacyRequest(before))
      .executeTakeFirst();
    const updates = await tx.deleteFrom('user_updates').executeTakeFirst();
    // A gap for every client, even one that had seen the whole log: all of them reload.
    await tx
      .updateTable('users')
      .set((eb) => ({ update_seq: eb('update_seq', '+', 1) }))
      .execute();
    return {
      messages: Number(messages.numUpdatedRows),
      summaries: Number(summaries.numUpdatedRows),
      requests: Number(requests.numUpdatedRows),
      updates: Number(updates.numDeletedRows),
    };
  });
}

/** The tables that held message text (VACUUM FULL on PostgreSQL; `users` never did). */
export const PURGED_TABLES = ['messages', 'user_chats', 'user_notifications', 'user_updates'] as const;

export type Compaction =
  | { engine: 'sqlite'; walTruncated: boolean }
  | { engine: 'postgres'; tables: readonly string[] };

/**
 * How long compact() keeps trying to truncate the WAL: a checkpoint waits for readers of an
 * older snapshot (busy_timeout, 5 s a try) and gives up at once while another connection
 * checkpoints (the checkpointer thread: a moment).
 */
const WAL_TRUNCATE_WAIT_MS = 15_000;
const WAL_TRUNCATE_PAUSE_MS = 100;

/**
 * Rewrites the database so that no page from before the purge survives: SQLite's VACUUM
 * (secure_delete on, so freed pages are zeroed too) then a TRUNCATE checkpoint (the WAL
 * holds old pages until it is cut to zero bytes; it cannot be while another process, a
 * running server, reads an older snapshot: walTruncated false); PostgreSQL's VACUUM FULL.
 */
export async function compact(db: Db, waitMs = WAL_TRUNCATE_WAIT_MS): Promise<Compaction> {
  if (db.engine === 'postgres') {
    for (const table of PURGED_TABLES) await sql`vacuum full ${sql.table(table)}`.execute(db.kysely);
    return { engine: 'postgres', tables: PURGED_TABLES };
  }
  await sql`pragma secure_delete = on`.execute(db.kysely);
  await sql`vacuum`.execute(db.kysely);
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (await truncateWal(db.kysely)) return { engine: 'sqlite', walTruncated: true };
    if (Date.now() >= deadline) return { engine: 'sqlite', walTruncated: false };
    await new Promise((resolve) => setTimeout(resolve, WAL_TRUNCATE_PAUSE_MS));
  }
}

/** One TRUNCATE checkpoint: whether it copied the whole WAL back and cut it to zero bytes. */
async function truncateWal(db: Kysely<Database>): Promise<boolean> {
  try {
    const { rows } = await sql<{ busy: number }>`pragma wal_checkpoint(TRUNCATE)`.execute(db);
    return rows[0]?.busy === 0;
  } catch (err) {
    // Another connection's checkpoint (the checkpointer thread) holds the lock: try again.
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return false;
    throw err;
  }
}

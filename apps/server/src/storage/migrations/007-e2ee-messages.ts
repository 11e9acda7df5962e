/**
 * Issue 14: sealed messages (docs/e2ee.md). Message text columns keep their
 * names but hold the ciphertext for rows marked `sealed` (a row from before keeps its
 * text until its sender re-encrypts it or the operator purges it):
 * - messages: `sealed`, and `rev` (the revision its ciphertext is: 0, +1 per edit);
 * - user_chats: the newest message's id, sender, revision and whether it is sealed or
 *   deleted, so a chat list preview can be opened in the browser; and `chat_key`, a copy of
 *   the chat's current key ("epoch:low,high", see chat_keys) that a send reads with the
 *   rest of its context (a read of chat_keys' newest epoch costs SQLite several times more);
 * - user_notifications: `sealed` for a request's first message;
 * - chat_keys: each chat's keys by epoch, sealed to both participants (the JSON envelope),
 *   with the participants' key epochs they were sealed to (`uk_epochs`, "low,high" by user
 *   id): a send under a key older than either participant's keys is refused.
 * The update log is emptied: its entries carry message text in the clear, in the old wire
 * format (every client reloads at this protocol version anyway; a log with a gap is never
 * resumed, see ChatStore.updatesSince).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const add = (table: string, column: string, type: 'integer' | 'text', zero = false) =>
    db.schema
      .alterTable(table)
      .addColumn(column, type, (c) => (zero ? c.notNull().defaultTo(0) : c))
      .execute();
  await add('messages', 'sealed', 'integer', true);
  await add('messages', 'rev', 'integer', true);
  await add('user_chats', 'last_id', 'text');
  await add('user_chats', 'last_sender', 'text');
  await add('user_chats', 'last_rev', 'integer', true);
  await add('user_chats', 'last_sealed', 'integer', true);
  await add('user_chats', 'last_deleted', 'integer', true);
  await add('user_chats', 'chat_key', 'text');
  await add('user_notifications', 'sealed', 'integer', true);
  await db.schema
    .createTable('chat_keys')
    .addColumn('chat_id', 'text', (c) => c.notNull())
    .addColumn('epoch', 'integer', (c) => c.notNull())
    .addColumn('creator_id', 'text', (c) => c.notNull())
    .addColumn('uk_epochs', 'text', (c) => c.notNull())
    .addColumn('envelope', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('chat_keys_pk', ['chat_id', 'epoch'])
    .execute();
  await sql`delete from user_updates`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('chat_keys').ifExists().execute();
  for (const [table, column] of [
    ['user_notifications', 'sealed'],
    ['user_chats', 'chat_key'],
    ['user_chats', 'last_deleted'],
    ['user_chats', 'last_sealed'],
    ['user_chats', 'last_rev'],
    ['user_chats', 'last_sender'],
    ['user_chats', 'last_id'],
    ['messages', 'rev'],
    ['messages', 'sealed'],
  ] as const) {
    await db.schema.alterTable(table).dropColumn(column).execute();
  }
}

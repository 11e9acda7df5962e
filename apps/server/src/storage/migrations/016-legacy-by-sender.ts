/**
 * Issue 32: re-encryption after sign-in. A browser pages its account's own messages still in
 * the clear (`legacyOwn`, maintenance/legacy-migrate.ts) by sender, chat and id. A partial
 * index holds only rows in the clear: messages sealed since encryption (all new ones) are
 * not in it, so sends pay nothing for it and it shrinks as messages are re-encrypted.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('messages_legacy_sender')
    .on('messages')
    .columns(['sender_id', 'chat_id', 'id'])
    .where(sql.ref('sealed'), '=', 0)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('messages_legacy_sender').ifExists().execute();
}

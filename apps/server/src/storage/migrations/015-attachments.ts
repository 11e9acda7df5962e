/**
 * Issue 31: attachments (protocol attachments.ts). One row per upload: whose it is, its
 * sealed size, whether it is complete, and the message it went out in (bound by the `send`
 * frame). The blob itself is in the attachment directory (attachments/blob-store.ts). Each
 * user's bytes are counted on their row, so the quota is checked and taken in one statement.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('attachments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('complete', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('chat_id', 'text')
    .addColumn('msg_id', 'text')
    .execute();
  await db.schema.createIndex('attachments_owner').on('attachments').column('owner_id').execute();
  await db.schema.createIndex('attachments_message').on('attachments').columns(['chat_id', 'msg_id']).execute();
  await db.schema.createIndex('attachments_created').on('attachments').column('created_at').execute();
  await db.schema
    .alterTable('users')
    .addColumn('attachment_bytes', 'bigint', (c) => c.notNull().defaultTo(sql`0`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('attachment_bytes').execute();
  await db.schema.dropTable('attachments').ifExists().execute();
}

/**
 * Issue 16: `npm run admin -- import-rtdb`. What the import of an original-app export has
 * made, by the original's id: users, chats, messages, broadcasts and requests. A second run
 * finds them here and skips them (nothing doubles); a chat's row is written in the same
 * transaction as its messages, so a chat is either here whole or not at all.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('import_ids')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('source_id', 'text', (c) => c.notNull())
    .addColumn('new_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('import_ids_pk', ['kind', 'source_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('import_ids').ifExists().execute();
}

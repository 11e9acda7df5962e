/**
 * Issue 30: a user's own marks on a chat beside archived and locked (protocol
 * chat-flags.ts): when they pinned it, until when it is muted (null: neither), and whether
 * they marked it unread.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('user_chats').addColumn('pinned_at', 'bigint').execute();
  await db.schema.alterTable('user_chats').addColumn('muted_until', 'bigint').execute();
  await db.schema
    .alterTable('user_chats')
    .addColumn('marked_unread', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['pinned_at', 'muted_until', 'marked_unread'])
    await db.schema.alterTable('user_chats').dropColumn(column).execute();
}

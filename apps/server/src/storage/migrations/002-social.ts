/**
 * Issue 4: when the user last opened /notifications, the PIN grant of a session, the
 * client message id a contact request carries (so a retried send is recognised), and
 * an index to find a pending request from one user to another.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('notifications_seen_at', 'bigint').execute();
  await db.schema.alterTable('sessions').addColumn('pin_unlocked_until', 'bigint').execute();
  await db.schema.alterTable('user_notifications').addColumn('msg_id', 'text').execute();
  await db.schema
    .createIndex('user_notifications_from_idx')
    .on('user_notifications')
    .columns(['from_id', 'user_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('user_notifications_from_idx').ifExists().execute();
  await db.schema.alterTable('user_notifications').dropColumn('msg_id').execute();
  await db.schema.alterTable('sessions').dropColumn('pin_unlocked_until').execute();
  await db.schema.alterTable('users').dropColumn('notifications_seen_at').execute();
}

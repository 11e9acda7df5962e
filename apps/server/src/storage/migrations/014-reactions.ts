/**
 * Issue 30: reactions (protocol reactions.ts). One sealed emoji per person per message:
 * the server keeps which message and whose, and a blob of one length whatever the emoji.
 * Removed with their message (deleted by its sender) and with the reactor's account.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('reactions')
    .addColumn('chat_id', 'text', (c) => c.notNull())
    .addColumn('msg_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('ct', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('reactions_pk', ['chat_id', 'msg_id', 'user_id'])
    .execute();
  await db.schema.createIndex('reactions_user').on('reactions').column('user_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('reactions').ifExists().execute();
}

/**
 * Issue 14: every identity key an account has had (docs/e2ee.md). A password
 * reset without a browser that holds the keys starts a new identity; the old one still
 * signed the chat keys of the history before it, so browsers need it to check those
 * envelopes once the old keys are unlocked, and peers are told when (and that) a
 * person's security code changed. One row per identity generation, written with it.
 * user_recovery: the account's keys sealed under the optional recovery key (one per account).
 * Also: the setting `e2ee_since`, the time of the newest message sent before end-to-end
 * encryption (absent on a deployment that never had one): chats show "Messages above
 * were sent before end-to-end encryption" after it.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('user_identities')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('id_version', 'integer', (c) => c.notNull())
    .addColumn('ik_pub', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_identities_pk', ['user_id', 'id_version'])
    .execute();
  await db.schema
    .createTable('user_recovery')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('bundle', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await sql`INSERT INTO user_identities (user_id, id_version, ik_pub, created_at)
    SELECT user_id, id_version, ik_pub, updated_at FROM user_keys`.execute(db);
  await sql`INSERT INTO settings (key, value)
    SELECT 'e2ee_since', CAST(MAX(timestamp) AS TEXT) FROM messages WHERE sealed = 0 HAVING COUNT(*) > 0`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('user_recovery').ifExists().execute();
  await db.schema.dropTable('user_identities').ifExists().execute();
  await sql`DELETE FROM settings WHERE key = 'e2ee_since'`.execute(db);
}

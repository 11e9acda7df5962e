/**
 * Issue 28: a user's encrypted account data (docs/e2ee.md, "Account data"): the
 * identity keys each peer has had and when this user's browsers first saw each, and the
 * ones they marked verified, sealed under the account's data key (the server cannot read
 * it). One blob per user, replaced by compare-and-set on `version`; a browser refuses an
 * older version than it has seen.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('user_account_data')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('user_account_data').ifExists().execute();
}

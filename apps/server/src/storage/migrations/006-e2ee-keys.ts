/**
 * Issue 14: end-to-end encryption's account keys (docs/e2ee.md).
 * - users: the password KDF's parameters and salt, and `auth_version` (0: the hash is of
 *   the password itself, an account from before; 1: of the browser-derived `auth`).
 * - user_keys: the public keys anyone may fetch, and the private ones sealed in a bundle
 *   only the owner's password (its wrap key) opens. `bundle_stale`: a reset changed the
 *   password, so the bundle is still sealed by the old one.
 * - user_key_archive: bundles sealed by earlier passwords (with that password's salt),
 *   kept so "unlock with your old password" can bring back history after a reset.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('kdf', 'text').execute();
  await db.schema.alterTable('users').addColumn('kdf_salt', 'text').execute();
  await db.schema
    .alterTable('users')
    .addColumn('auth_version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('user_keys')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('id_version', 'integer', (c) => c.notNull())
    .addColumn('ik_pub', 'text', (c) => c.notNull())
    .addColumn('uk_epoch', 'integer', (c) => c.notNull())
    .addColumn('uk_pub', 'text', (c) => c.notNull())
    .addColumn('uk_sig', 'text', (c) => c.notNull())
    .addColumn('bundle', 'text', (c) => c.notNull())
    .addColumn('bundle_version', 'integer', (c) => c.notNull())
    .addColumn('bundle_stale', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('user_key_archive')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('bundle_version', 'integer', (c) => c.notNull())
    .addColumn('id_version', 'integer', (c) => c.notNull())
    .addColumn('bundle', 'text', (c) => c.notNull())
    .addColumn('kdf', 'text', (c) => c.notNull())
    .addColumn('kdf_salt', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_key_archive_pk', ['user_id', 'bundle_version'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('user_key_archive').ifExists().execute();
  await db.schema.dropTable('user_keys').ifExists().execute();
  await db.schema.alterTable('users').dropColumn('auth_version').execute();
  await db.schema.alterTable('users').dropColumn('kdf_salt').execute();
  await db.schema.alterTable('users').dropColumn('kdf').execute();
}

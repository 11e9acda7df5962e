/**
 * Issue 28: the e-mail address's own password credential (docs/e2ee.md, "Two logins, two
 * salts"), JSON `{authHash, salt, wrap}`: argon2id of the `auth` derived under a salt of
 * its own, and the handle's secrets sealed under its wrap key. Null for an account whose
 * password was last set before it: its address still answers the handle's salt.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('email_login', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('email_login').execute();
}

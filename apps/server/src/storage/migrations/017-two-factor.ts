/**
 * Issue 32: two-step sign-in (protocol two-factor.ts). An account's authenticator app secret
 * (sealed under a key of the server's: auth/totp.ts), its passkeys (public keys only), its
 * recovery codes (argon2id hashes), and the sign-ins whose password step passed and whose
 * second step is due (a token's hash, short-lived, with its attempts counted).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('user_totp')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('confirmed', 'integer', (c) => c.notNull().defaultTo(0))
    /** The last time step a code was accepted for: a code is good once. */
    .addColumn('last_step', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('user_passkeys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('counter', 'bigint', (c) => c.notNull())
    .addColumn('transports', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .execute();
  await db.schema.createIndex('user_passkeys_user').on('user_passkeys').column('user_id').execute();
  await db.schema
    .createTable('user_recovery_codes')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('n', 'integer', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addPrimaryKeyConstraint('user_recovery_codes_pk', ['user_id', 'n'])
    .execute();
  await db.schema
    .createTable('pending_sign_ins')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('login', 'text', (c) => c.notNull())
    .addColumn('remember', 'integer', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    /** A passkey challenge (base64url) while one is out; an enrolment's new secret is in user_totp. */
    .addColumn('challenge', 'text')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pending_sign_ins_user').on('pending_sign_ins').column('user_id').execute();
  /** A signed-in account's passkey registration under way: its challenge, one at a time. */
  await db.schema
    .createTable('passkey_challenges')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('challenge', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['passkey_challenges', 'pending_sign_ins', 'user_recovery_codes', 'user_passkeys', 'user_totp']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}

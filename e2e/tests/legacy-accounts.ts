/**
 * Accounts from before end-to-end encryption, made from new ones by editing the suite
 * server's database: argon2id of the password itself, no KDF, no keys. Their first sign-in
 * sends the password once and makes their keys, which then say the account had messages in
 * the clear until that moment (so rows in the clear written before it show, marked "Not
 * encrypted"; an account made with keys refuses them).
 */
import { legacyPasswordHash } from '@app/server/test';
import { E2E_DB_FILE } from '../env.ts';
import type { NewUser } from './fixtures.ts';
import { withDb } from './private-server.ts';

export async function makeLegacy(user: NewUser, id: string, dbFile = E2E_DB_FILE): Promise<void> {
  const hash = await legacyPasswordHash(user.password);
  withDb(dbFile, (db) => {
    db.prepare('UPDATE users SET password_hash = ?, auth_version = 0, kdf = NULL, kdf_salt = NULL WHERE id = ?').run(
      hash,
      id,
    );
    for (const table of ['user_keys', 'user_identities', 'user_key_archive', 'user_account_data']) {
      db.prepare(`DELETE FROM ${table} WHERE user_id = ?`).run(id);
    }
  });
}

/**
 * Password credentials without the password (design e2ee.md 2.3): the browser derives
 * `auth` from the password and the account's salt; the server keeps argon2id of `auth`
 * and the salt, and answers `prelogin` with the salt, or, for a login no account has, a
 * made-up salt that stays the same for that login (so the answer tells nothing).
 */
import { type Credentials, handleKey, type KdfParamsWire, type PreloginResponse } from '@app/protocol';
import type { Config } from '../config.ts';
import { HttpError } from '../http/errors.ts';
import type { AccountKdf, StoredCredentials } from '../storage/key-store.ts';
import type { User } from '../storage/store.ts';
import { hashSecret } from './passwords.ts';

/** The parameters browsers derive new passwords with. */
export function kdfParams(config: Config): KdfParamsWire {
  return { alg: 'scrypt', N: 2 ** config.kdfCost, r: 8, p: 1 };
}

/** Refuses credentials derived with weaker parameters than this server's (400). Cheap: no hashing. */
export function checkKdf(config: Config, kdf: KdfParamsWire): void {
  const min = kdfParams(config);
  if (kdf.N < min.N || kdf.r < min.r) {
    throw new HttpError(400, 'invalid_input', 'The password was derived with parameters too weak for this server');
  }
}

/**
 * Checks the parameters are at least this server's and hashes `auth` for storage. The hash
 * is argon2id's memory and time: routes anyone may call run checkKdf first and this only
 * once the request has passed its rate limit or proved its token.
 */
export async function acceptCredentials(config: Config, c: Credentials): Promise<StoredCredentials> {
  checkKdf(config, c.kdf);
  return { authHash: await hashSecret(c.auth), kdf: c.kdf, salt: c.salt };
}

/**
 * The prelogin answer for `login`. `hmac` is the server's keyed hash (base64url): an unknown
 * login's made-up salt is 16 bytes of it, so it never changes between attempts or processes.
 */
export function preloginAnswer(
  config: Config,
  hmac: (text: string) => string,
  login: string,
  user: Pick<User, 'authVersion'> | null,
  kdf: AccountKdf | null,
  legacyPasswords = true,
): PreloginResponse {
  // With the legacy path closed (LEGACY_PASSWORDS), such an account is answered as no account is.
  if (user && user.authVersion === 0 && legacyPasswords) return { kdf: { alg: 'legacy' } };
  if (user && kdf?.kdf && kdf.salt) return { kdf: kdf.kdf, salt: kdf.salt };
  const made = Buffer.from(hmac(`prelogin\n${handleKey(login)}`), 'base64url').subarray(0, 16);
  return { kdf: kdfParams(config), salt: made.toString('base64url') };
}

/**
 * Password credentials without the password (docs/e2ee.md): the browser derives
 * `auth` from the password and the account's salt; the server keeps argon2id of `auth`
 * and the salt, and answers `prelogin` with the salt, or, for a login no account has, a
 * made-up salt that stays the same for that login (so the answer tells nothing). The
 * e-mail address has a credential and salt of its own, so it is not linked to the handle.
 */
import {
  type Credentials,
  type EmailLoginWire,
  handleKey,
  type KdfParamsWire,
  type PreloginResponse,
} from '@app/protocol';
import type { Config } from '../config.ts';
import { HttpError } from '../http/errors.ts';
import type { AccountKdf, EmailLoginStored, StoredCredentials } from '../storage/accounts/key-store.ts';
import type { User } from '../storage/accounts/users.ts';
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
  const [authHash, email] = await Promise.all([hashSecret(c.auth), acceptEmailLogin(c.email)]);
  return { authHash, kdf: c.kdf, salt: c.salt, email };
}

/** The e-mail address's own credential as stored: argon2id of its `auth`. */
export async function acceptEmailLogin(e: EmailLoginWire): Promise<EmailLoginStored> {
  return { authHash: await hashSecret(e.auth), salt: e.salt, wrap: e.wrap };
}

/** How many accounts derive their password with each KDF setting (KeyStore.kdfMix). */
export type KdfMix = readonly { kdf: KdfParamsWire; accounts: number }[];

/** How the sign-in field's text names an account (spec section 5): '@alice' and 'alice' are handles; other text with '@' is an address. */
export function loginKind(login: string): 'handle' | 'email' {
  const value = login.trim();
  return /^@[A-Za-z0-9_]+$/.test(value) || !value.includes('@') ? 'handle' : 'email';
}

/**
 * The hash a sign-in's `auth` is checked against: an address's own credential where it has
 * one (and its `wrap` for the browser), else the handle's (`shared`: the address has none yet).
 */
export function signInCredential(
  login: string,
  user: Pick<User, 'passwordHash'>,
  kdf: AccountKdf | null,
): { hash: string; wrap?: string; shared: boolean } {
  const shared = !kdf?.email;
  const email = loginKind(login) === 'email' ? (kdf?.email ?? null) : null;
  return email ? { hash: email.authHash, wrap: email.wrap, shared } : { hash: user.passwordHash, shared };
}

/**
 * The prelogin answer for `login`. `hmac` is the server's keyed hash (base64url): an unknown
 * login's made-up salt is 16 bytes of it, so it never changes between attempts or processes.
 * Its KDF setting is one the accounts have, picked by the same hash in proportion to how
 * many have each (`mix`): where accounts derive with several settings (KDF_COST was raised),
 * a made-up answer looks like a real one rather than like the server's current setting.
 */
export function preloginAnswer(
  config: Config,
  hmac: (text: string) => string,
  login: string,
  user: Pick<User, 'authVersion'> | null,
  kdf: AccountKdf | null,
  legacyPasswords = true,
  mix: KdfMix = [],
): PreloginResponse {
  // With the legacy path closed (LEGACY_PASSWORDS), such an account is answered as no account is.
  if (user && user.authVersion === 0 && legacyPasswords) return { kdf: { alg: 'legacy' } };
  if (user && kdf?.kdf && kdf.salt) {
    const email = loginKind(login) === 'email' ? kdf.email : null;
    return { kdf: kdf.kdf, salt: email ? email.salt : kdf.salt };
  }
  const made = Buffer.from(hmac(`prelogin\n${handleKey(login)}`), 'base64url');
  return { kdf: madeUpKdf(config, mix, made.readUIntBE(16, 6)), salt: made.subarray(0, 16).toString('base64url') };
}

/** The setting of the account at `pick` (mod their number) in the mix; the server's own when there is none. */
function madeUpKdf(config: Config, mix: KdfMix, pick: number): KdfParamsWire {
  const total = mix.reduce((n, m) => n + m.accounts, 0);
  let at = total > 0 ? pick % total : 0;
  for (const m of mix) {
    if (at < m.accounts) return m.kdf;
    at -= m.accounts;
  }
  return kdfParams(config);
}

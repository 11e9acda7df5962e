/**
 * The password KDF (docs/e2ee.md, the Bitwarden/Proton pattern): scrypt turns the password
 * and the account's salt into a master secret; HKDF splits it into `auth`, which is all
 * the server ever receives (it keeps argon2id of it), and `wrapKey`, which seals the key
 * bundle and never leaves the browser. scrypt is @noble/hashes (pure JS, no WASM, so the
 * CSP stays `script-src 'self'`); browsers run it in a Web Worker.
 */

import { scryptAsync } from '@noble/hashes/scrypt.js';
import { type Bytes, fromBase64Url, randomBytes, toBase64Url, utf8 } from './bytes.ts';
import type { CryptoKey } from './crypto-key.ts';
import { aesKey, hkdf, hkdfKey } from './hkdf.ts';

import type { KdfParams } from './kdf-floor.ts';

export type { KdfParams } from './kdf-floor.ts';

/** N = 2^17, r = 8: 128 MiB and a fraction of a second per derivation. */
export const KDF_DEFAULT: KdfParams = { alg: 'scrypt', N: 2 ** 17, r: 8, p: 1 };

export const SALT_BYTES = 16;
export const AUTH_INFO = 'parley/auth/v1';
export const WRAP_INFO = 'parley/wrap/v1';

export function newSalt(): string {
  return toBase64Url(randomBytes(SALT_BYTES));
}

/**
 * scrypt(password, salt). The password is NFKC-normalised first, so the same password
 * typed on two keyboards (composed or decomposed accents) opens the same keys.
 */
export async function deriveMaster(password: string, salt: Uint8Array, params: KdfParams): Promise<Bytes> {
  const master = await scryptAsync(utf8(password.normalize('NFKC')), salt, {
    N: params.N,
    r: params.r,
    p: params.p,
    dkLen: 32,
    // noble allocates 128·r·(N + p) bytes, plus a little.
    maxmem: 128 * params.r * (params.N + params.p + 2) + 4096,
  });
  return master as Bytes;
}

export interface PasswordKeys {
  /** base64url, 32 bytes: sent instead of the password. */
  auth: string;
  /** Seals the key bundle; non-extractable. */
  wrapKey: CryptoKey;
}

export async function splitMaster(master: Uint8Array): Promise<PasswordKeys> {
  const key = await hkdfKey(master);
  const auth = await hkdf(key, utf8(AUTH_INFO));
  const wrap = await hkdf(key, utf8(WRAP_INFO));
  try {
    const wrapKey = await aesKey(wrap);
    return { auth: toBase64Url(auth), wrapKey };
  } finally {
    wrap.fill(0);
  }
}

/** New credentials for a password: a fresh salt, `auth` for the server, the wrap key for the bundle. */
export async function newCredentials(
  password: string,
  kdf: KdfParams,
): Promise<PasswordKeys & { salt: string; kdf: KdfParams }> {
  const salt = newSalt();
  const keys = await splitMaster(await deriveMaster(password, fromBase64Url(salt), kdf));
  return { ...keys, salt, kdf };
}

/** The credentials of an existing account (its salt from prelogin). */
export async function passwordKeys(password: string, salt: string, kdf: KdfParams): Promise<PasswordKeys> {
  return splitMaster(await deriveMaster(password, fromBase64Url(salt), kdf));
}

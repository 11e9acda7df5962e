/**
 * The password KDF (docs/e2ee.md, the Bitwarden/Proton pattern): scrypt turns the password
 * and the account's salt into a master secret; HKDF splits it into `auth`, which is all
 * the server ever receives (it keeps argon2id of it), and `wrapKey`, which seals the key
 * bundle and never leaves the browser. scrypt is @noble/hashes (pure JS, no WASM, so the
 * CSP stays `script-src 'self'`); browsers run it in a Web Worker.
 */

import { scryptAsync } from '@noble/hashes/scrypt.js';
import { aeadOpen, aeadSeal, NONCE_BYTES, TAG_BYTES } from './aead.ts';
import { type Bytes, concat, fromBase64Url, randomBytes, toBase64Url, utf8 } from './bytes.ts';
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

/** deriveMaster with a base64url salt, as prelogin and new credentials carry it. */
export function masterOf(password: string, salt: string, params: KdfParams): Promise<Bytes> {
  return deriveMaster(password, fromBase64Url(salt), params);
}

export interface PasswordKeys {
  /** base64url, 32 bytes: sent instead of the password. */
  auth: string;
  /** Seals the key bundle; non-extractable. */
  wrapKey: CryptoKey;
}

/** `auth` and the raw wrap key of a master secret (the caller zeroes `wrap`). */
async function splitRaw(master: Uint8Array): Promise<{ auth: Bytes; wrap: Bytes }> {
  const key = await hkdfKey(master);
  return { auth: await hkdf(key, utf8(AUTH_INFO)), wrap: await hkdf(key, utf8(WRAP_INFO)) };
}

export async function splitMaster(master: Uint8Array): Promise<PasswordKeys> {
  const { auth, wrap } = await splitRaw(master);
  try {
    const wrapKey = await aesKey(wrap);
    return { auth: toBase64Url(auth), wrapKey };
  } finally {
    wrap.fill(0);
  }
}

/**
 * The e-mail address's own credential (docs/e2ee.md, "Two logins, two salts"): `auth` of
 * the password under a salt of its own, and `wrap`, the handle's `auth` and wrap key sealed
 * under this credential's wrap key. Signing in with the address opens `wrap` and holds
 * what the handle's salt would have given, so the two logins never share a salt.
 */
export interface EmailLogin {
  auth: string;
  salt: string;
  wrap: string;
}

export const EMAIL_WRAP_AAD = 'parley/email-wrap/v1';
/** nonce ‖ (32-byte auth ‖ 32-byte wrap key) ‖ tag, base64url: 123 characters. */
export const EMAIL_WRAP_LENGTH = Math.ceil(((NONCE_BYTES + 64 + TAG_BYTES) * 4) / 3);

/** The e-mail credential for a handle's master secret, from the same password's master under `salt`. */
export async function emailLogin(handleMaster: Uint8Array, emailMaster: Uint8Array, salt: string): Promise<EmailLogin> {
  const handle = await splitRaw(handleMaster);
  const email = await splitRaw(emailMaster);
  const secret = concat(handle.auth, handle.wrap);
  try {
    const wrap = await aeadSeal(await aesKey(email.wrap), secret, utf8(EMAIL_WRAP_AAD));
    return { auth: toBase64Url(email.auth), salt, wrap: toBase64Url(wrap) };
  } finally {
    for (const b of [secret, handle.wrap, email.wrap]) b.fill(0);
  }
}

/** The handle's `auth` and wrap key from an e-mail sign-in's keys and the account's `wrap`. Throws when it does not open. */
export async function openEmailWrap(keys: PasswordKeys, wrap: string): Promise<PasswordKeys> {
  const secret = await aeadOpen(keys.wrapKey, fromBase64Url(wrap), utf8(EMAIL_WRAP_AAD));
  try {
    if (secret.length !== 64) throw new RangeError('Invalid e-mail wrap');
    return { auth: toBase64Url(secret.subarray(0, 32)), wrapKey: await aesKey(secret.subarray(32)) };
  } finally {
    secret.fill(0);
  }
}

export interface NewCredentials extends PasswordKeys {
  salt: string;
  kdf: KdfParams;
  email: EmailLogin;
}

/**
 * New credentials for a password: a fresh salt, `auth` for the server, the wrap key for
 * the bundle, and the e-mail address's own credential. The two masters are given
 * (a browser derives them in two workers at once), or derived here one after the other.
 */
export async function credentialsFrom(
  handle: { master: Uint8Array; salt: string },
  email: { master: Uint8Array; salt: string },
  kdf: KdfParams,
): Promise<NewCredentials> {
  const keys = await splitMaster(handle.master);
  return { ...keys, salt: handle.salt, kdf, email: await emailLogin(handle.master, email.master, email.salt) };
}

export async function newCredentials(password: string, kdf: KdfParams): Promise<NewCredentials> {
  const [salt, emailSalt] = [newSalt(), newSalt()];
  const master = await masterOf(password, salt, kdf);
  const emailMaster = await masterOf(password, emailSalt, kdf);
  try {
    return await credentialsFrom({ master, salt }, { master: emailMaster, salt: emailSalt }, kdf);
  } finally {
    master.fill(0);
    emailMaster.fill(0);
  }
}

/** The credentials of an existing account (its salt from prelogin). */
export async function passwordKeys(password: string, salt: string, kdf: KdfParams): Promise<PasswordKeys> {
  const master = await masterOf(password, salt, kdf);
  try {
    return await splitMaster(master);
  } finally {
    master.fill(0);
  }
}

/**
 * What a browser does with a password, for tests that speak HTTP themselves: derive
 * `auth` (never the password) with the account's salt, and make and seal an account's
 * keys. Derivations are remembered per password and salt, so a test file pays for each
 * scrypt once.
 */

import { randomBytes } from 'node:crypto';
import {
  addEncryptionEpoch,
  type BundleContents,
  createAccount,
  type KdfParams,
  newCredentials,
  type PasswordKeys,
  passwordKeys,
  sealBundle,
} from '@app/e2ee';
import type { OwnKeys, PreloginResponse } from '@app/protocol';
import { hashSecret } from '../auth/passwords.ts';
import type { AccountStore } from '../storage/accounts/account-store.ts';

/** What a server from before end-to-end encryption stored for a password: argon2id of the password itself. */
export function legacyPasswordHash(password: string): Promise<string> {
  return hashSecret(password);
}

/**
 * An account from before end-to-end encryption, made straight in `store`: argon2id of the
 * password itself, no KDF, no keys. Returns it and the sign-up input it was made from.
 */
export async function legacyAccount(
  store: { createUser: AccountStore['createUser'] },
  password: string,
  input: { username: string; name: string; email: string; phone: string; age: number },
) {
  const user = await store.createUser({ ...input, passwordHash: await hashSecret(password), now: Date.now() });
  return { user, input };
}

/** Cheap scrypt for tests (servers under test run with KDF_COST=10). */
export const TEST_KDF: KdfParams = { alg: 'scrypt', N: 2 ** 10, r: 8, p: 1 };

interface Poster {
  post<T = any>(p: string, body?: unknown): Promise<{ status: number; body: T }>;
  request<T = any>(method: string, p: string, body?: unknown): Promise<{ status: number; body: T }>;
}

const derived = new Map<string, Promise<PasswordKeys>>();

export function deriveKeys(password: string, salt: string, kdf: KdfParams): Promise<PasswordKeys> {
  const key = `${kdf.N}/${kdf.r}/${kdf.p}\n${salt}\n${password}`;
  let keys = derived.get(key);
  if (!keys) {
    keys = passwordKeys(password, salt, kdf);
    derived.set(key, keys);
  }
  return keys;
}

/** The sign-in body a browser would send for `password` (prelogin first). */
export async function signInBody(client: Poster, login: string, password: string, extra: { remember?: boolean } = {}) {
  const pre = await client.post<PreloginResponse>('/api/auth/prelogin', { login });
  if (pre.status !== 200) throw new Error(`prelogin failed: ${pre.status} ${JSON.stringify(pre.body)}`);
  if (pre.body.kdf.alg === 'legacy') return { login, password, ...extra };
  const { auth } = await deriveKeys(password, (pre.body as { salt: string }).salt, pre.body.kdf);
  return { login, auth, ...extra };
}

/** A well-formed `auth` nobody derived: a guess, as far as the server can tell. */
export function randomAuth(): string {
  return randomBytes(32).toString('base64url');
}

/** The `auth` of a signed-in account's password, to confirm a change (e-mail, password, PIN). */
export async function authOf(client: Poster, password: string): Promise<string> {
  const own = await client.request<{ keys: OwnKeys | null }>('GET', '/api/me/keys');
  if (!own.body.keys) throw new Error(`no keys: ${own.status} ${JSON.stringify(own.body)}`);
  return (await deriveKeys(password, own.body.keys.salt, own.body.keys.kdf)).auth;
}

/** New credentials for a password (sign-up, reset, change). */
export async function credentialsFor(password: string, kdf: KdfParams = TEST_KDF) {
  const c = await newCredentials(password, kdf);
  return { credentials: { auth: c.auth, salt: c.salt, kdf: c.kdf, email: c.email }, wrapKey: c.wrapKey };
}

export interface AccountSecrets {
  contents: BundleContents;
  wrapKey: PasswordKeys['wrapKey'];
}

/** Makes an account's first keys and uploads them sealed, as a browser does after sign-up. */
export async function setUpKeys(
  client: Poster,
  userId: string,
  wrapKey: PasswordKeys['wrapKey'],
): Promise<AccountSecrets> {
  // Made with its keys, as a browser's sign-up makes them: it had no messages before encryption.
  const at = Date.now();
  const { contents, publicKeys } = await createAccount(userId, 1, { at, legacy: false, tombstones: at });
  const bundle = await sealBundle(contents, wrapKey, userId, 1);
  const { userId: _, ...keys } = publicKeys;
  const res = await client.request('PUT', '/api/me/keys', { bundle, bundleVersion: 1, keys });
  if (res.status !== 200) throw new Error(`keys refused: ${res.status} ${JSON.stringify(res.body)}`);
  return { contents, wrapKey };
}

/** The account's own keys as the server holds them (GET /api/me/keys); throws without any. */
export async function ownKeysOf(client: Poster): Promise<OwnKeys> {
  const own = await client.request<{ keys: OwnKeys | null }>('GET', '/api/me/keys');
  if (!own.body.keys) throw new Error(`no keys: ${own.status} ${JSON.stringify(own.body)}`);
  return own.body.keys;
}

/**
 * The body of a password change as the web client sends it: `auth` of `currentPassword`,
 * new credentials for `newPassword`, and the same keys (`contents`) re-sealed under the new
 * wrap key as the next bundle version (or `bundleVersion`). Also returns the new secrets.
 */
export async function changePasswordBody(
  client: Poster,
  userId: string,
  contents: BundleContents,
  currentPassword: string,
  newPassword: string,
  opts: { bundleVersion?: number; kdf?: KdfParams } = {},
) {
  const own = await ownKeysOf(client);
  const { auth } = await deriveKeys(currentPassword, own.salt, own.kdf);
  const { credentials, wrapKey } = await credentialsFor(newPassword, opts.kdf);
  const bundleVersion = opts.bundleVersion ?? own.bundleVersion + 1;
  const bundle = await sealBundle(contents, wrapKey, userId, bundleVersion);
  return { body: { auth, credentials, bundle, bundleVersion }, secrets: { contents, wrapKey } as AccountSecrets };
}

/** Asks for a reset link for `email` (POST /api/auth/forgot-password) and returns its token. */
export async function resetToken(
  t: { client(): Poster; outbox(): { to: string[] | string; links: string[] }[] },
  email: string,
): Promise<string> {
  const before = t.outbox().length;
  const asked = await t.client().post('/api/auth/forgot-password', { email });
  if (asked.status !== 204) throw new Error(`forgot-password answered ${asked.status}`);
  for (let i = 0; i < 100; i++) {
    const link = t
      .outbox()
      .slice(before)
      .filter((m) => m.to.includes(email))
      .flatMap((m) => m.links)
      .find((l) => l.includes('/reset-password?token='));
    if (link) return new URL(link).searchParams.get('token') as string;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no reset link for ${email}`);
}

/** The body of POST /api/auth/reset-password for `password`: new credentials, never the password. */
export async function resetPasswordBody(token: string | null, password: string) {
  return { token, credentials: (await credentialsFor(password)).credentials };
}

/**
 * New keys, put as a browser does (PUT /api/me/keys, the next bundle version, sealed under
 * the same wrap key): a new encryption-key epoch with the same identity (`rotate`, old
 * private keys kept), or a new identity (IK and UK, the next epoch number; the old private
 * keys are gone). Returns the new secrets.
 */
export async function putNewKeys(
  client: Poster,
  userId: string,
  secrets: AccountSecrets,
  kind: 'rotate' | 'identity',
): Promise<AccountSecrets> {
  const own = await ownKeysOf(client);
  const next =
    kind === 'rotate'
      ? await addEncryptionEpoch(secrets.contents, userId)
      : await createAccount(userId, own.publicKeys.ukEpoch + 1);
  const bundleVersion = own.bundleVersion + 1;
  const bundle = await sealBundle(next.contents, secrets.wrapKey, userId, bundleVersion);
  const { userId: _, ...keys } = next.publicKeys;
  const res = await client.request('PUT', '/api/me/keys', { bundle, bundleVersion, keys });
  if (res.status !== 200) throw new Error(`keys refused: ${res.status} ${JSON.stringify(res.body)}`);
  return { contents: next.contents, wrapKey: secrets.wrapKey };
}

/**
 * What the browser makes of a password (docs/e2ee.md): it asks the server for the
 * account's KDF salt (prelogin), derives `auth`, the only thing the server receives, and
 * the wrap key that opens the key bundle. scrypt runs in a Web Worker (kdf-worker.ts)
 * loaded only when a form is submitted, so no first screen carries it. The e-mail address
 * has a salt of its own (docs/e2ee.md, "Two logins, two salts").
 */
import type { KdfParams, PasswordKeys } from '@app/e2ee/kdf';
import {
  API,
  type Credentials,
  noContentSchema,
  type OwnKeys,
  type PreloginResponse,
  preloginResponseSchema,
} from '@app/protocol';
import { api } from '@/lib/api';
import { publicSettings } from '@/lib/public-settings';
import type { KdfRequest } from './kdf-worker';
import { DOWNGRADE_REFUSED, seenEncrypted } from './known-logins';

function inWorker(request: KdfRequest): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./kdf-worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (e: MessageEvent<{ ok: true; master: Uint8Array } | { ok: false; message: string }>) => {
      worker.terminate();
      if (e.data.ok) resolve(e.data.master);
      else reject(new Error(e.data.message));
    };
    worker.onerror = (e) => {
      worker.terminate();
      reject(new Error(e.message || 'The password could not be processed'));
    };
    worker.postMessage(request);
  });
}

/**
 * scrypt of `password` under `salt` (in a worker where there are workers). Parameters
 * under this browser's floor (kdf-floor.ts) are refused before anything is derived,
 * whatever the server said: a server asking for less wants what it receives cheap to crack.
 */
async function master(password: string, salt: string, kdf: KdfParams): Promise<Uint8Array> {
  const { kdfAcceptable, KDF_TOO_WEAK } = await import('@app/e2ee/kdf-floor');
  if (!kdfAcceptable(kdf)) throw new Error(KDF_TOO_WEAK);
  if (typeof Worker === 'undefined') return (await import('@app/e2ee/kdf')).masterOf(password, salt, kdf);
  return inWorker({ password, salt, kdf });
}

/** `auth` and the wrap key of `password` under `salt`. */
export async function derivePasswordKeys(password: string, salt: string, kdf: KdfParams): Promise<PasswordKeys> {
  const [secret, { splitMaster }] = await Promise.all([master(password, salt, kdf), import('@app/e2ee/kdf')]);
  try {
    return await splitMaster(secret);
  } finally {
    secret.fill(0);
  }
}

export function prelogin(login: string): Promise<PreloginResponse> {
  return api(preloginResponseSchema, 'POST', API.prelogin, { login });
}

/**
 * What to send for `password` at sign-in: `auth` and the wrap key; or, for an account
 * from before end-to-end encryption, the password itself this one last time (never for a
 * login this browser has seen with keys: known-logins.ts).
 */
export async function signInSecret(
  login: string,
  password: string,
): Promise<{ auth: string; keys: PasswordKeys } | { password: string; legacy: true }> {
  const pre = await prelogin(login);
  if (!('salt' in pre)) {
    if (await seenEncrypted(login)) throw new Error(DOWNGRADE_REFUSED);
    return { password, legacy: true };
  }
  const keys = await derivePasswordKeys(password, pre.salt, pre.kdf);
  return { auth: keys.auth, keys };
}

/**
 * The handle's keys after a sign-in: an e-mail address with a credential of its own (the
 * answer's `wrap`) opens them; otherwise the password's keys are the handle's. A `wrap`
 * that does not open under this password's keys signs nobody in.
 */
export async function handleKeys(keys: PasswordKeys, wrap: string | undefined): Promise<PasswordKeys> {
  if (wrap === undefined) return keys;
  const { openEmailWrap } = await import('@app/e2ee/kdf');
  return openEmailWrap(keys, wrap).catch(() => {
    throw new Error(WRAP_REFUSED);
  });
}

export const WRAP_REFUSED =
  "The server's answer for this e-mail address doesn't open with your password. Nothing was changed.";

/**
 * New credentials for `password` (sign-up, reset, change): fresh salts for the handle and
 * for the e-mail address, this server's KDF, derived in two workers at once.
 */
export async function newCredentials(password: string): Promise<{ credentials: Credentials; keys: PasswordKeys }> {
  const [{ kdf }, e2ee] = await Promise.all([publicSettings(), import('@app/e2ee/kdf')]);
  const [salt, emailSalt] = [e2ee.newSalt(), e2ee.newSalt()];
  const [handle, email] = await Promise.all([master(password, salt, kdf), master(password, emailSalt, kdf)]);
  try {
    const made = await e2ee.credentialsFrom({ master: handle, salt }, { master: email, salt: emailSalt }, kdf);
    return {
      credentials: { auth: made.auth, salt, kdf, email: made.email },
      keys: { auth: made.auth, wrapKey: made.wrapKey },
    };
  } finally {
    handle.fill(0);
    email.fill(0);
  }
}

/**
 * Gives the account's e-mail address a salt of its own, for an account whose password was
 * set before addresses had one (sign-in said `sharedSalt`): two derivations in the
 * background once signed in, and the handle's `auth` confirms the write.
 */
export async function separateEmailSalt(password: string, own: Pick<OwnKeys, 'salt' | 'kdf'>): Promise<void> {
  const e2ee = await import('@app/e2ee/kdf');
  const emailSalt = e2ee.newSalt();
  const [handle, email] = await Promise.all([
    master(password, own.salt, own.kdf),
    master(password, emailSalt, own.kdf),
  ]);
  try {
    const { auth } = await e2ee.splitMaster(handle);
    const login = await e2ee.emailLogin(handle, email, emailSalt);
    await api(noContentSchema, 'PUT', API.emailLogin, { auth, email: login });
  } finally {
    handle.fill(0);
    email.fill(0);
  }
}

/**
 * What the browser makes of a password (docs/e2ee.md): it asks the server for the
 * account's KDF salt (prelogin), derives `auth`, the only thing the server receives, and
 * the wrap key that opens the key bundle. scrypt runs in a Web Worker (kdf-worker.ts)
 * loaded only when a form is submitted, so no first screen carries it.
 */
import type { KdfParams, PasswordKeys } from '@app/e2ee/kdf';
import { API, type Credentials, type PreloginResponse, preloginResponseSchema } from '@app/protocol';
import { api } from '../api';
import { publicSettings } from '../public-settings';
import type { KdfRequest } from './kdf-worker';
import { DOWNGRADE_REFUSED, seenEncrypted } from './known-logins';

function inWorker(request: KdfRequest): Promise<PasswordKeys> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./kdf-worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (e: MessageEvent<{ ok: true; keys: PasswordKeys } | { ok: false; message: string }>) => {
      worker.terminate();
      if (e.data.ok) resolve(e.data.keys);
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
 * `auth` and the wrap key of `password` under `salt` (in a worker where there are workers).
 * Parameters under this browser's floor (kdf.ts) are refused before anything is derived,
 * whatever the server said: a server asking for less wants what it receives cheap to crack.
 */
export async function derivePasswordKeys(password: string, salt: string, kdf: KdfParams): Promise<PasswordKeys> {
  const { kdfAcceptable, KDF_TOO_WEAK } = await import('@app/e2ee/kdf-floor');
  if (!kdfAcceptable(kdf)) throw new Error(KDF_TOO_WEAK);
  if (typeof Worker === 'undefined') {
    const { passwordKeys } = await import('@app/e2ee/kdf');
    return passwordKeys(password, salt, kdf);
  }
  return inWorker({ password, salt, kdf });
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

/** New credentials for `password` (sign-up, reset, change): a fresh salt and this server's KDF. */
export async function newCredentials(password: string): Promise<{ credentials: Credentials; keys: PasswordKeys }> {
  const [{ kdf }, { newSalt }] = await Promise.all([publicSettings(), import('@app/e2ee/kdf')]);
  const salt = newSalt();
  const keys = await derivePasswordKeys(password, salt, kdf);
  return { credentials: { auth: keys.auth, salt, kdf }, keys };
}

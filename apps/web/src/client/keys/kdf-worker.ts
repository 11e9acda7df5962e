/**
 * The password KDF off the main thread: scrypt takes a good part of a second and 128 MiB,
 * and the page must keep painting "Signing In..." meanwhile. Answers with the 32-byte
 * master secret (transferred), which the page splits (password-keys.ts) and zeroes; new
 * credentials run two of these at once, one per salt.
 */
import { type KdfParams, masterOf } from '@app/e2ee/kdf';

export interface KdfRequest {
  password: string;
  salt: string;
  kdf: KdfParams;
}

self.onmessage = async (e: MessageEvent<KdfRequest>) => {
  try {
    const master = await masterOf(e.data.password, e.data.salt, e.data.kdf);
    self.postMessage({ ok: true, master }, { transfer: [master.buffer] });
  } catch (err) {
    self.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err) });
  }
};

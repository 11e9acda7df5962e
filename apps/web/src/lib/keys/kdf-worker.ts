/**
 * The password KDF off the main thread: scrypt takes a good part of a second and 128 MiB,
 * and the page must keep painting "Signing In..." meanwhile. Answers with `auth` and the
 * non-extractable wrap key (CryptoKeys travel by structured clone).
 */
import { type KdfParams, passwordKeys } from '@app/e2ee/kdf';

export interface KdfRequest {
  password: string;
  salt: string;
  kdf: KdfParams;
}

self.onmessage = async (e: MessageEvent<KdfRequest>) => {
  try {
    const keys = await passwordKeys(e.data.password, e.data.salt, e.data.kdf);
    self.postMessage({ ok: true, keys });
  } catch (err) {
    self.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err) });
  }
};

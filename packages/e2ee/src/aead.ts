/** AES-256-GCM with a random 96-bit nonce, written as nonce ‖ ciphertext ‖ tag. */

import { type Bytes, bytes, concat, randomBytes } from './bytes.ts';
import type { CryptoKey } from './crypto-key.ts';

export const NONCE_BYTES = 12;
export const TAG_BYTES = 16;

export async function aeadSeal(key: CryptoKey, plaintext: Uint8Array, aad: Uint8Array): Promise<Bytes> {
  const iv = randomBytes(NONCE_BYTES);
  const sealed = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: bytes(aad) },
    key,
    bytes(plaintext),
  );
  return concat(iv, new Uint8Array(sealed));
}

/** Throws (an OperationError) when anything was changed. */
export async function aeadOpen(key: CryptoKey, data: Uint8Array, aad: Uint8Array): Promise<Bytes> {
  if (data.length < NONCE_BYTES + TAG_BYTES) throw new RangeError('Sealed data too short');
  const opened = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: bytes(data.subarray(0, NONCE_BYTES)), additionalData: bytes(aad) },
    key,
    bytes(data.subarray(NONCE_BYTES)),
  );
  return new Uint8Array(opened);
}

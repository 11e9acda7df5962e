/** HKDF-SHA-256 (RFC 5869) through Web Crypto, with an empty salt unless one is given. */

import { type Bytes, bytes } from './bytes.ts';
import type { CryptoKey } from './crypto-key.ts';

export async function hkdfKey(ikm: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', bytes(ikm), 'HKDF', false, ['deriveBits', 'deriveKey']);
}

export async function hkdf(
  ikm: Uint8Array | CryptoKey,
  info: Uint8Array,
  length = 32,
  salt?: Uint8Array,
): Promise<Bytes> {
  const key = ikm instanceof Uint8Array ? await hkdfKey(ikm) : ikm;
  const bits = await crypto.subtle.deriveBits(
    { name: 'HKDF', hash: 'SHA-256', salt: bytes(salt ?? new Uint8Array(0)), info: bytes(info) },
    key,
    length * 8,
  );
  return bytes(bits);
}

/** A non-extractable AES-256-GCM key derived with HKDF. */
export async function hkdfAesKey(ikm: Uint8Array | CryptoKey, info: Uint8Array): Promise<CryptoKey> {
  const raw = await hkdf(ikm, info);
  try {
    return await aesKey(raw);
  } finally {
    raw.fill(0);
  }
}

export async function aesKey(raw: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', bytes(raw), 'AES-GCM', false, ['encrypt', 'decrypt']);
}

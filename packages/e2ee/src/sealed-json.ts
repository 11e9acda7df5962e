/**
 * A JSON document sealed for its owner (the key bundle, the account data): AES-256-GCM
 * under `key`, its associated data binding a label, the owner and a version, so a document
 * cannot be handed to another user nor passed off as another version.
 * Wire form: base64url(0x01 ‖ nonce(12) ‖ ciphertext ‖ tag).
 */
import { aeadOpen, aeadSeal } from './aead.ts';
import { concat, fields, fromBase64Url, fromUtf8, toBase64Url, u32, utf8 } from './bytes.ts';
import type { CryptoKey } from './crypto-key.ts';
import { authenticated, E2EEAuthError } from './errors.ts';

const FORMAT = 0x01;

/** Who and which version a sealed document is: what its associated data binds. */
export interface SealedFor {
  label: string;
  userId: string;
  version: number;
}

function aad(d: SealedFor): Uint8Array {
  return fields(d.label, d.userId, u32(d.version));
}

export async function sealJson(key: CryptoKey, d: SealedFor, value: unknown): Promise<string> {
  const sealed = await aeadSeal(key, utf8(JSON.stringify(value)), aad(d));
  return toBase64Url(concat(new Uint8Array([FORMAT]), sealed));
}

/** Opens and parses a sealed document; anything wrong (`parse` throwing too) is an E2EEAuthError about `what`. */
export function openJson<T>(
  key: CryptoKey,
  d: SealedFor,
  sealed: string,
  what: string,
  parse: (value: unknown) => T,
): Promise<T> {
  return authenticated(what, async () => {
    const data = fromBase64Url(sealed);
    if (data[0] !== FORMAT) throw new E2EEAuthError(what);
    return parse(JSON.parse(fromUtf8(await aeadOpen(key, data.subarray(1), aad(d)))));
  });
}

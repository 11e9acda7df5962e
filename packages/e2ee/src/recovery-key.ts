/**
 * The optional recovery key (docs/e2ee.md): 128 random bits the user writes down, shown
 * once as 7 groups of 4 characters (RFC 4648 base32, the 16 bytes and one check byte, the
 * first of their SHA-256), so a mistyped key is told apart from a wrong one. The bundle is
 * also sealed under recoveryWrapKey(key) (bundle.ts), so after a password reset the key
 * brings back what the old password would have.
 */
import { concat, randomBytes } from './bytes.ts';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
export const RECOVERY_KEY_BYTES = 16;

async function checkByte(key: Uint8Array): Promise<number> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', key as Uint8Array<ArrayBuffer>))[0] as number;
}

function base32(data: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of data) {
    value = ((value << 8) | byte) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/** A new recovery key: its bytes, and the text to show ("ABCD-EFGH-…", 7 groups of 4). */
export async function newRecoveryKey(): Promise<{ key: Uint8Array; text: string }> {
  const key = randomBytes(RECOVERY_KEY_BYTES);
  const chars = base32(concat(key, new Uint8Array([await checkByte(key)])));
  return { key, text: chars.match(/.{4}/g)?.join('-') ?? chars };
}

/**
 * The key a user typed (any case, spaces or dashes anywhere, 0, 1 and 8 read as the
 * O, I and B base32 has), or null when it is not a recovery key (wrong length or check byte).
 */
export async function parseRecoveryKey(text: string): Promise<Uint8Array | null> {
  const chars = text.toUpperCase().replace(/[\s-]/g, '').replace(/0/g, 'O').replace(/1/g, 'I').replace(/8/g, 'B');
  if (chars.length !== 28 || [...chars].some((c) => !ALPHABET.includes(c))) return null;
  const data = new Uint8Array(RECOVERY_KEY_BYTES + 1);
  let bits = 0;
  let value = 0;
  let i = 0;
  for (const c of chars) {
    value = ((value << 5) | ALPHABET.indexOf(c)) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      if (i < data.length) data[i++] = (value >>> (bits - 8)) & 255;
      bits -= 8;
    }
  }
  const key = data.slice(0, RECOVERY_KEY_BYTES);
  return data[RECOVERY_KEY_BYTES] === (await checkByte(key)) ? key : null;
}

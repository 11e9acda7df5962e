/**
 * Safety numbers (docs/e2ee.md): Signal's NumericFingerprint construction. For each user,
 * hash = SHA-512(version ‖ IK ‖ user id), then 5,200 times hash = SHA-512(hash ‖ IK);
 * the first 30 bytes become six 5-digit groups (each 5 bytes, big-endian, mod 100,000).
 * The two users' 30 digits are shown together, the lower user id's first, so both
 * people see the same 60 digits.
 */
import { sha512 } from '@noble/hashes/sha2.js';
import { concat, fromBase64Url, u16, utf8 } from './bytes.ts';

const VERSION = 0;
const ITERATIONS = 5200;

export function displayableHalf(userId: string, ik: string): string {
  const key = fromBase64Url(ik);
  let hash: Uint8Array = concat(u16(VERSION), key, utf8(userId));
  for (let i = 0; i < ITERATIONS; i++) hash = sha512(concat(hash, key));
  let out = '';
  for (let i = 0; i < 30; i += 5) {
    let chunk = 0;
    for (let j = 0; j < 5; j++) chunk = chunk * 256 + (hash[i + j] as number);
    out += String(chunk % 100000).padStart(5, '0');
  }
  return out;
}

/** 60 digits in 12 groups of five. */
export function safetyNumber(a: { userId: string; ik: string }, b: { userId: string; ik: string }): string[] {
  const [first, second] = a.userId < b.userId ? [a, b] : [b, a];
  const digits = displayableHalf(first.userId, first.ik) + displayableHalf(second.userId, second.ik);
  return digits.match(/\d{5}/g) ?? [];
}

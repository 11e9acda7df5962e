import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A 20-character alphanumeric id (≈119 bits). No '_' or '-', so two ids joined with
 * '_' (the chat key) split back unambiguously.
 */
export function newId(length = 20): string {
  const out: string[] = [];
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: reject the tail to keep the distribution uniform.
      if (byte < 248 && out.length < length) out.push(ALPHABET[byte % 62] as string);
    }
  }
  return out.join('');
}

let counter = 0;
const COUNTER_SPAN = 36 ** 6;

/**
 * An id that sorts by creation time within this process, even in the same millisecond:
 * the time (9 base-36 digits), a process-wide counter, then randomness. For append-only
 * logs listed newest first by (time, id).
 */
export function newTimeOrderedId(now: number): string {
  counter = (counter + 1) % COUNTER_SPAN;
  return `${now.toString(36).padStart(9, '0')}${counter.toString(36).padStart(6, '0')}${newId(8)}`;
}

/**
 * Padmé padding (Nikitin et al., "Reducing Metadata Leakage from Encrypted Files and
 * Communication with PURBs", PETS 2019): a length L is rounded up so that only its top
 * O(log log L) bits remain, at most 12 % more bytes. Content is ended by 0x80 and then
 * zeros (ISO/IEC 7816-4), so unpadding is unambiguous.
 */
import type { Bytes } from './bytes.ts';

/** Nothing shorter leaves the browser: short messages all look alike. */
export const PAD_MIN = 32;

export function padmeLength(length: number): number {
  if (length < 2) return length;
  const e = Math.floor(Math.log2(length));
  const s = Math.floor(Math.log2(e)) + 1;
  const step = 2 ** (e - s);
  return Math.ceil(length / step) * step;
}

export function paddedLength(contentLength: number): number {
  return Math.max(PAD_MIN, padmeLength(contentLength + 1));
}

export function pad(content: Uint8Array): Bytes {
  const out = new Uint8Array(paddedLength(content.length));
  out.set(content);
  out[content.length] = 0x80;
  return out;
}

/** Throws when the padding is not 0x80 then zeros. */
export function unpad(padded: Uint8Array): Bytes {
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (end < 0 || padded[end] !== 0x80) throw new SyntaxError('Bad padding');
  return padded.slice(0, end);
}

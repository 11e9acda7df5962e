/**
 * What the bench sends: sealed messages (docs/e2ee.md) the size real ones are. A
 * browser seals a type byte and the UTF-8 text, Padmé-padded to at least 32 bytes, then
 * adds 35 bytes (header 7, nonce 12, tag 16) and base64url-encodes it all
 * (packages/e2ee/src/message.ts). The bench cannot make real ones (it has no chat keys),
 * nor need it: the server checks the clear header only. So each ciphertext here is
 * random bytes of exactly the length a text of the drawn length seals to, behind a valid
 * header (format 1, epoch 1, revision 0: the chat key seed() stores).
 *
 * The text lengths are a chat's: mostly a sentence, some replies of a word or two, some
 * paragraphs, now and then something pasted. Characters are 96 % ASCII, 3 % two-byte
 * UTF-8 (é, ü, ñ, Cyrillic...) and 1 % emoji (four bytes).
 */
import { randomBytes } from 'node:crypto';
import { MESSAGE_OVERHEAD, paddedLength } from '@app/e2ee';

/** The text length mix (characters), by share of messages. */
export const LENGTH_MIX = [
  { share: 0.1, min: 1, max: 9, what: 'a word or two' },
  { share: 0.62, min: 10, max: 60, what: 'a sentence' },
  { share: 0.13, min: 61, max: 99, what: 'two sentences' },
  { share: 0.13, min: 100, max: 300, what: 'a paragraph' },
  { share: 0.02, min: 1000, max: 2000, what: 'something pasted' },
] as const;

/** The epoch and revision every bench ciphertext claims: seed()'s chat key, a new message. */
export const BENCH_EPOCH = 1;

const HEADER_FORMAT = 0x01;

export interface SealedSample {
  /** The text it stands for: characters, UTF-8 bytes. */
  chars: number;
  utf8: number;
  /** The base64url ciphertext. */
  ct: string;
}

function between(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min + 1));
}

/** A text length from LENGTH_MIX: its bucket, characters and UTF-8 bytes. */
export function drawText(): { bucket: number; chars: number; utf8: number } {
  let r = Math.random();
  let bucket = LENGTH_MIX.length - 1;
  for (let i = 0; i < LENGTH_MIX.length; i++) {
    r -= LENGTH_MIX[i]?.share ?? 0;
    if (r < 0) {
      bucket = i;
      break;
    }
  }
  const b = LENGTH_MIX[bucket] ?? LENGTH_MIX[0];
  const chars = between(b.min, b.max);
  let utf8 = 0;
  for (let i = 0; i < chars; i++) {
    const c = Math.random();
    utf8 += c < 0.96 ? 1 : c < 0.99 ? 2 : 4;
  }
  return { bucket, chars, utf8 };
}

/** The bytes a text of `utf8` UTF-8 bytes seals to (type byte, Padmé, header, nonce, tag). */
export function sealedBytes(utf8: number): number {
  return paddedLength(1 + utf8) + MESSAGE_OVERHEAD;
}

/** Random bytes of that length behind a valid header (format 1, `epoch`, revision `rev`). */
export function fakeCiphertext(bytes: number, epoch = BENCH_EPOCH, rev = 0): string {
  const b = randomBytes(bytes);
  b[0] = HEADER_FORMAT;
  b.writeUInt32BE(epoch, 1);
  b.writeUInt16BE(rev, 5);
  return b.toString('base64url');
}

/** `n` ciphertexts drawn from the mix, in random order. */
export function makePool(n: number): SealedSample[] {
  return Array.from({ length: n }, () => {
    const { chars, utf8 } = drawText();
    return { chars, utf8, ct: fakeCiphertext(sealedBytes(utf8)) };
  });
}

/** The mix in a few lines for the report: each bucket's ciphertext lengths, and the means. */
export function describeMix(draws = 100_000): string[] {
  const ct = LENGTH_MIX.map(() => ({ min: Number.POSITIVE_INFINITY, max: 0 }));
  let chars = 0;
  let utf8 = 0;
  let ctChars = 0;
  for (let i = 0; i < draws; i++) {
    const t = drawText();
    const len = Math.ceil((sealedBytes(t.utf8) * 4) / 3);
    const range = ct[t.bucket];
    if (range) {
      range.min = Math.min(range.min, len);
      range.max = Math.max(range.max, len);
    }
    chars += t.chars;
    utf8 += t.utf8;
    ctChars += len;
  }
  const pct = (v: number) => `${Math.round(v * 100)}%`.padStart(4);
  const lines = LENGTH_MIX.map((b, i) => {
    const r = ct[i];
    const span = r && r.min < r.max ? `${r.min}–${r.max}` : `${r?.min ?? 'n/a'}`;
    const text = `  ${pct(b.share)}  ${`${b.min}–${b.max}`.padEnd(9)} chars (${b.what})`;
    return `${text.padEnd(46)}→ ct ${span} chars`;
  });
  const mean = (v: number) => (v / draws).toFixed(0);
  lines.push(
    `  mean: text ${mean(chars)} chars, ${mean(utf8)} UTF-8 bytes → ct ${mean(ctChars)} base64url chars ` +
      `(${(ctChars / utf8).toFixed(2)}× the text's bytes)`,
  );
  return lines;
}

/**
 * Sealed message text on the wire (end-to-end encryption, docs/e2ee.md): the
 * server relays and stores `ct`, a ciphertext only the two participants open. Its first
 * bytes (format 0x01, u32 chat-key epoch, u16 revision) are in the clear, so the server
 * can check a send names the chat's current key and an edit the next revision without
 * reading anything. Formats and cryptography are packages/e2ee's.
 */
import { z } from 'zod';
import { chatIdSchema, userIdSchema } from './chat.ts';

const B64URL = /^[A-Za-z0-9_-]*$/;

/**
 * A sealed message: 35 bytes of header, nonce and tag and a Padmé-padded plaintext of at
 * least 32 bytes; a 4,096-character message (12,288 UTF-8 bytes at most) stays under 20,000.
 */
export const ciphertextSchema = z
  .string({ error: 'Invalid ciphertext' })
  .min(90, { error: 'Invalid ciphertext' })
  .max(20_000, { error: 'Messages can be at most 4096 characters' })
  .regex(B64URL, { error: 'Invalid ciphertext' })
  .refine((ct) => sealedHeader(ct) !== null, { error: 'Invalid ciphertext' });

const DIGIT = new Map([...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'].map((c, i) => [c, i]));

/** The epoch and revision a ciphertext says it is, or null when its header is not one. */
export function sealedHeader(ct: string): { epoch: number; rev: number } | null {
  // 12 characters are 9 bytes: the header's 7 and two more. Decoded by hand: this runs on
  // every send the server takes.
  if (ct.length < 12) return null;
  const bytes: number[] = [];
  for (let i = 0; i < 12; i += 4) {
    let n = 0;
    for (let j = 0; j < 4; j++) {
      const d = DIGIT.get(ct[i + j] as string);
      if (d === undefined) return null;
      n = n * 64 + d;
    }
    bytes.push(n >>> 16, (n >>> 8) & 0xff, n & 0xff);
  }
  const [format, e1, e2, e3, e4, r1, r2] = bytes as [number, number, number, number, number, number, number];
  if (format !== 0x01) return null;
  const epoch = e1 * 2 ** 24 + (e2 << 16) + (e3 << 8) + e4;
  return epoch >= 1 ? { epoch, rev: (r1 << 8) | r2 } : null;
}

const b64 = (len: number, error: string) => z.string({ error }).length(len, { error }).regex(B64URL, { error });

/** One participant's HPKE seal of a chat key (32-byte enc, 32-byte key + 16-byte tag). */
export const chatKeySealSchema = z.strictObject({
  userId: userIdSchema,
  ukEpoch: z
    .number()
    .int()
    .min(1)
    .max(2 ** 31 - 1),
  enc: b64(43, 'Invalid chat key'),
  ct: b64(64, 'Invalid chat key'),
});

/** A chat key for one epoch, sealed to both participants and signed by its creator. */
export const chatKeyEnvelopeSchema = z.strictObject({
  chatId: chatIdSchema,
  epoch: z
    .number()
    .int()
    .min(1)
    .max(2 ** 31 - 1),
  creatorId: userIdSchema,
  seals: z.array(chatKeySealSchema).length(2, { error: 'Invalid chat key' }),
  sig: b64(86, 'Invalid chat key'),
});
export type ChatKeyEnvelopeWire = z.infer<typeof chatKeyEnvelopeSchema>;

/**
 * Reactions: one per person per message, sealed like messages (docs/e2ee.md,
 * "Reactions"). The server stores and relays an opaque blob per person per message and
 * knows which message it is on, not which emoji it is: every sealed reaction has the same
 * length (REACTION_CT_LENGTH). `ct: null` takes one's reaction back.
 */
import { z } from 'zod';
import { chatIdSchema, messageIdSchema } from './chat.ts';

/**
 * The length of a sealed reaction in base64url: format (1) ‖ u32 epoch ‖ nonce (12) ‖
 * the emoji padded to 64 bytes ‖ tag (16): 97 bytes.
 */
export const REACTION_CT_LENGTH = 130;

/**
 * The chat-key epoch a sealed reaction names in its clear header (format 0x01, u32 epoch),
 * or null when it has no such header. What the server checks; the browser authenticates.
 */
export function reactionEpoch(ct: string): number | null {
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(atob(ct.slice(0, 8).replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
  if (bytes.length < 5 || bytes[0] !== 0x01) return null;
  const epoch = new DataView(bytes.buffer).getUint32(1);
  return epoch >= 1 ? epoch : null;
}

export const reactionCiphertextSchema = z
  .string({ error: 'Invalid reaction' })
  .length(REACTION_CT_LENGTH, { error: 'Invalid reaction' })
  .regex(/^[A-Za-z0-9_-]*$/, { error: 'Invalid reaction' })
  .refine((ct) => reactionEpoch(ct) !== null, { error: 'Invalid reaction' });

/** One person's reaction to one message, as stored and relayed. */
export const reactionSchema = z.object({
  chatId: z.string(),
  msgId: z.string(),
  userId: z.string(),
  /** The sealed emoji; null: taken back. */
  ct: z.string().nullable(),
  at: z.number().int().nonnegative(),
});
export type Reaction = z.infer<typeof reactionSchema>;

/** React to a message of one's own chat (or, with `ct: null`, take the reaction back). */
export const reactSchema = z.strictObject({
  t: z.literal('react'),
  id: z.string().min(1).max(64),
  chatId: chatIdSchema,
  msgId: messageIdSchema,
  ct: reactionCiphertextSchema.nullable(),
});

export const REACTION_MSG = {
  deleted: 'This message was deleted',
  notFound: 'Message not found',
} as const;

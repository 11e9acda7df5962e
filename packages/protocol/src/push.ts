/**
 * Web Push (RFC 8030, 8291, 8292): a browser's push subscription, stored per session so
 * the server can say "New message from @bob" while no tab is open, and what a push holds.
 * A push never holds message text (messages are sealed end to end; the server has none).
 */
import { z } from 'zod';

const b64url = (min: number, max: number) =>
  z
    .string()
    .min(min)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+=*$/);

/** PUT /api/push: the browser's PushSubscription (its toJSON()), as the Push API gives it. */
export const pushSubscriptionSchema = z.object({
  endpoint: z
    .string()
    .max(2048)
    .refine((v) => URL.canParse(v) && ['https:', 'http:'].includes(new URL(v).protocol), {
      error: 'Invalid push endpoint',
    }),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({
    /** The browser's P-256 public key, uncompressed (65 bytes). */
    p256dh: b64url(86, 90),
    /** The 16-byte authentication secret. */
    auth: b64url(22, 24),
  }),
});
export type PushSubscriptionInput = z.infer<typeof pushSubscriptionSchema>;

/** GET /api/push: the server's VAPID public key, and whether this session has a subscription. */
export const pushStateSchema = z.object({
  /** base64url, uncompressed P-256 point: the applicationServerKey for subscribe(). */
  publicKey: z.string(),
  subscribed: z.boolean(),
});
export type PushState = z.infer<typeof pushStateSchema>;

/** What a push carries (encrypted to the browser): who wrote or reacted, never what. */
export const pushPayloadSchema = z.object({
  /** A new message, or a reaction to one of the user's messages. */
  t: z.enum(['message', 'reaction']),
  /** The chat to open. */
  peerId: z.string(),
  /** The sender's @handle, or null for a locked chat (its activity stays hidden). */
  from: z.string().nullable(),
});
export type PushPayload = z.infer<typeof pushPayloadSchema>;

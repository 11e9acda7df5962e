/**
 * What each WebSocket request answers with: the `data` of its `result` frame. The client
 * parses every result with the schema of the request it sent; the server's handlers are
 * typed by the same schemas.
 */
import { z } from 'zod';
import { chatMessageSchema, chatSummarySchema, presenceSchema, publicUserSchema } from './chat.ts';
import { publicKeysSchema } from './keys.ts';
import { reactionSchema } from './reactions.ts';
import { chatKeyEnvelopeSchema } from './sealed.ts';
import { accessSchema, notificationItemSchema } from './social.ts';
import type { RequestFrame } from './ws.ts';

const count = z.object({ count: z.number().int().nonnegative() });
const message = z.object({ message: chatMessageSchema });

export const resultSchemas = {
  /** Stored, or (to a user who takes messages from contacts only) sent as a contact request. */
  send: z.union([message, z.object({ request: accessSchema })]),
  edit: message,
  delete: message,
  delivered: count,
  read: count,
  history: z.object({
    messages: z.array(chatMessageSchema),
    /** Older messages exist before the page. */
    hasMore: z.boolean(),
    /** Newer messages exist after the page (never for the newest page). */
    hasNewer: z.boolean(),
    peer: publicUserSchema.nullable(),
    access: accessSchema,
    /** The reactions to the page's messages (absent: none). */
    reactions: z.array(reactionSchema).optional(),
  }),
  chats: z.object({ chats: z.array(chatSummarySchema) }),
  users: z.object({
    users: z.array(publicUserSchema.extend({ online: z.boolean() })),
    /** The cursor of the next page, or null on the last. */
    next: z.string().nullable(),
  }),
  user: z.object({ user: publicUserSchema, presence: presenceSchema }),
  watch: z.object({ presence: z.array(presenceSchema) }),
  chatFlags: z.object({ chat: chatSummarySchema }),
  notifications: z.object({ items: z.array(notificationItemSchema), unseen: z.number().int().nonnegative() }),
  notificationsSeen: z.object({ unseen: z.number().int().nonnegative() }),
  respondRequest: z.object({ accepted: z.boolean() }),
  keys: z.object({ keys: z.array(publicKeysSchema) }),
  chatKeys: z.object({ chatKeys: z.array(chatKeyEnvelopeSchema) }),
  /** The items re-encrypted, by message id (others: not the sender's, not from before, or done already). */
  migrate: z.object({ migrated: z.array(z.string()) }),
  legacyOwn: z.object({
    messages: z.array(chatMessageSchema),
    /** All of one's own messages in the clear (the locked chats' left out), on the first page only. */
    total: z.number().int().nonnegative().optional(),
  }),
  react: z.object({ reaction: reactionSchema }),
} satisfies Record<RequestFrame['t'], z.ZodType>;

export type RequestKind = keyof typeof resultSchemas;
/** What each request answers with. */
export type ResultData = { [K in RequestKind]: z.infer<(typeof resultSchemas)[K]> };

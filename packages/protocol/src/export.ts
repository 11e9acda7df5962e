/**
 * "Download my data" (Settings): GET API.exportData streams everything the server holds
 * for the signed-in user as NDJSON, one `ExportLine` per line, in this order: `account`,
 * each `contact`, each `notification`, then each chat as a `chat` line followed by its
 * messages, oldest first, in `messages` pages; `end` last (a stream without it was cut
 * short). Messages are as the server stores them (sealed); the browser opens them with its
 * own keys and builds the archive, so no plaintext ever goes back to the server.
 */
import { z } from 'zod';
import { meSchema } from './api.ts';
import { chatMessageSchema, chatSummarySchema, publicUserSchema } from './chat.ts';
import { notificationItemSchema, privacySchema } from './social.ts';

/** The version of the archive's layout (export.json says it). */
export const EXPORT_FORMAT = 1;
/** Messages per `messages` line: what the server reads from the database at a time. */
export const EXPORT_PAGE = 500;
/** The answer's media type. */
export const EXPORT_CONTENT_TYPE = 'application/x-ndjson; charset=utf-8';

const time = z.number().int().nonnegative();

export const exportLineSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('account'),
    format: z.literal(EXPORT_FORMAT),
    exportedAt: time,
    user: meSchema,
    privacy: privacySchema,
    hasPin: z.boolean(),
    /** How many chats and messages follow (for a progress bar). */
    chats: z.number().int().nonnegative(),
    messages: z.number().int().nonnegative(),
  }),
  /** Someone whose contact request this user accepted, or who accepted theirs. */
  z.object({ kind: z.literal('contact'), user: publicUserSchema.nullable(), userId: z.string(), since: time }),
  z.object({ kind: z.literal('notification'), item: notificationItemSchema }),
  /**
   * A chat as the chat list has it. `withheld`: it is locked and this session holds no PIN
   * grant, so its messages come without their text (ct and legacyText null).
   */
  z.object({ kind: z.literal('chat'), chat: chatSummarySchema, withheld: z.boolean() }),
  z.object({ kind: z.literal('messages'), chatId: z.string(), messages: z.array(chatMessageSchema) }),
  z.object({ kind: z.literal('end'), chats: z.number().int().nonnegative(), messages: z.number().int().nonnegative() }),
]);
export type ExportLine = z.infer<typeof exportLineSchema>;

/** Chat entities as they travel on the wire (spec section 3, with camelCase fields). */
import { z } from 'zod';
import { text } from './text.ts';

/** Longest message text, in UTF-16 code units (what String.length counts). */
export const MESSAGE_MAX = 4096;
/** Messages per history page. */
export const HISTORY_PAGE = 50;
/** Users per contacts page. */
export const USERS_PAGE = 50;

/** Ids the server makes: 20 alphanumerics. */
export const userIdSchema = z.string().regex(/^[A-Za-z0-9]{20}$/, { error: 'Invalid user id' });
/** Message ids the client makes (a UUID or similar): idempotency keys for sends. */
export const messageIdSchema = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, { error: 'Invalid message id' });
export const chatIdSchema = z.string().regex(/^[A-Za-z0-9]{20}_[A-Za-z0-9]{20}$/, { error: 'Invalid chat id' });

export const messageTextSchema = text({
  required: 'Message text is required',
  max: [MESSAGE_MAX, `Messages can be at most ${MESSAGE_MAX} characters`],
}).refine((t) => t.trim().length > 0, { error: 'Message text is required' });

const time = z.number().int().nonnegative();

export const messageStatusSchema = z.enum(['sent', 'delivered', 'read']);
export type MessageStatus = z.infer<typeof messageStatusSchema>;

export const chatMessageSchema = z.object({
  chatId: z.string(),
  id: z.string(),
  senderId: z.string(),
  recipientId: z.string(),
  /** The sealed text (sealed.ts); null when deleted, withheld, or sent before encryption. */
  ct: z.string().nullable(),
  /** Which revision `ct` is: 0, then one more per edit. */
  rev: z.number().int().nonnegative(),
  /** A message from before end-to-end encryption: its text, until its sender re-encrypts it. */
  legacyText: z.string().nullable(),
  timestamp: time,
  status: messageStatusSchema,
  edited: z.boolean(),
  deleted: z.boolean(),
  deliveredAt: time.nullable(),
  readAt: time.nullable(),
});
export type ChatMessage = z.infer<typeof chatMessageSchema>;

/** Another user as anyone may see them. */
export const publicUserSchema = z.object({
  id: z.string(),
  username: z.string(),
  name: z.string(),
  profilePic: z.string().nullable(),
  verified: z.boolean(),
});
export type PublicUser = z.infer<typeof publicUserSchema>;

export const presenceSchema = z.object({
  userId: z.string(),
  online: z.boolean(),
  /** ms timestamp, or null when unknown or hidden. */
  lastSeen: time.nullable(),
});
export type Presence = z.infer<typeof presenceSchema>;

/** One row of the chat list: the user's summary of a chat with `peer`. */
export const chatSummarySchema = z.object({
  chatId: z.string(),
  peerId: z.string(),
  /** null when the peer's account was deleted. */
  peer: publicUserSchema.nullable(),
  /** The newest message, sealed, for the preview; null in an empty chat or one withheld (locked). */
  last: z
    .object({
      id: z.string(),
      senderId: z.string(),
      ct: z.string().nullable(),
      rev: z.number().int().nonnegative(),
      legacyText: z.string().nullable(),
      deleted: z.boolean(),
    })
    .nullable(),
  timestamp: time,
  unreadCount: z.number().int().nonnegative(),
  archived: z.boolean(),
  locked: z.boolean(),
  /** When the user pinned it (the list shows pinned chats first, the latest pinned on top); null: not pinned. */
  pinnedAt: time.nullable(),
  /** Until when it is muted (ms; MUTED_ALWAYS for good, chat-flags.ts); null: not muted. */
  mutedUntil: time.nullable(),
  /** The user marked it unread (it shows unread, without a count, until it is read). */
  markedUnread: z.boolean(),
});
export type ChatSummary = z.infer<typeof chatSummarySchema>;

/**
 * A chat-list row without its newest message: what a `message` update carries of the
 * summary the message made (its `last` is the message itself, see summaryAfter), so the
 * ciphertext is logged and sent once per user rather than twice.
 */
export const chatStateSchema = chatSummarySchema.omit({ last: true });
export type ChatState = z.infer<typeof chatStateSchema>;

/** Whether the server withheld the message's content (a locked chat, to a socket without the PIN). */
export function isWithheld(m: ChatMessage): boolean {
  return m.ct === null && m.legacyText === null && !m.deleted;
}

/** A summary's `last` for `m`; null for a message withheld (a locked chat without the PIN). */
export function lastOf(m: ChatMessage): ChatSummary['last'] {
  if (isWithheld(m)) return null;
  return { id: m.id, senderId: m.senderId, ct: m.ct, rev: m.rev, legacyText: m.legacyText, deleted: m.deleted };
}

/** The chat-list row a `message` update describes: its chat state headed by the message. */
export function summaryAfter(state: ChatState, m: ChatMessage): ChatSummary {
  return { ...state, last: lastOf(m) };
}

export const DELETED_TEXT = 'This message deleted';
export const DELETED_ACCOUNT = 'Deleted account';

/** The chat key: the two user ids sorted and joined with an underscore. */
export function chatIdOf(a: string, b: string): string {
  return a < b ? `${a}_${b}` : `${b}_${a}`;
}

/** The other participant of a chat. */
export function peerOf(chatId: string, me: string): string {
  const [a, b] = chatId.split('_');
  return a === me ? (b as string) : (a as string);
}

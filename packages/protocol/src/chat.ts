/** Chat entities as they travel on the wire (spec section 3, with camelCase fields). */
import { z } from 'zod';

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

export const messageTextSchema = z
  .string({ error: 'Message text is required' })
  .max(MESSAGE_MAX, { error: `Messages can be at most ${MESSAGE_MAX} characters` })
  .refine((t) => t.trim().length > 0, { error: 'Message text is required' });

export type MessageStatus = 'sent' | 'delivered' | 'read';

export interface ChatMessage {
  chatId: string;
  id: string;
  senderId: string;
  recipientId: string;
  text: string;
  timestamp: number;
  status: MessageStatus;
  edited: boolean;
  deleted: boolean;
  deliveredAt: number | null;
  readAt: number | null;
}

/** Another user as anyone may see them. */
export interface PublicUser {
  id: string;
  username: string;
  name: string;
  profilePic: string | null;
  verified: boolean;
}

export interface Presence {
  userId: string;
  online: boolean;
  /** ms timestamp, or null when unknown or hidden. */
  lastSeen: number | null;
}

/** One row of the chat list: the user's summary of a chat with `peer`. */
export interface ChatSummary {
  chatId: string;
  peerId: string;
  /** null when the peer's account was deleted. */
  peer: PublicUser | null;
  lastMessage: string | null;
  timestamp: number;
  unreadCount: number;
  archived: boolean;
  locked: boolean;
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

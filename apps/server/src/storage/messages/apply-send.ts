/**
 * The rules of a send, written once (docs/message-path.md): from both people's summaries
 * of the chat before it, what a send changes. Both ways of writing a send call it, the
 * single send's statements (insert-message.ts) and PostgreSQL's grouped
 * sends (send-batch.ts); they differ only in how they read and write rows, never in what
 * the rows become.
 */
import type { ChatMessage, PublicUser } from '@app/protocol';
import type { Selectable } from 'kysely';
import type { UserChatsTable } from '../schema.ts';
import { type Entry, newMessage, type StoredText, toChatState } from './chat-rows.ts';

export type SummaryRow = Selectable<UserChatsTable>;

/** A send's message, as the caller hands it over. */
export interface SendFacts {
  chatId: string;
  msgId: string;
  senderId: string;
  recipientId: string;
  body: StoredText;
  now: number;
  /** The chat's key after this send ("epoch:low,high", see chat-keys.ts); undefined: unchanged. */
  chatKey?: string | null | undefined;
}

/** What the send reads: both summaries (made blank for a new chat, timestamp 0) and both public profiles. */
export interface SendBefore {
  sender: SummaryRow;
  recipient: SummaryRow;
  senderProfile: PublicUser | null;
  recipientProfile: PublicUser | null;
}

/** What the send writes: the message, both summaries as they become, and one log entry each. */
export interface SendEffects {
  message: ChatMessage;
  sender: SummaryRow;
  recipient: SummaryRow;
  entries: [Entry, Entry];
}

/**
 * The effects of one send:
 * - its timestamp is the clock's, or one past the chat's newest when the clock has not
 *   moved on: strictly increasing within a chat, so history ordered by timestamp is in
 *   the order the server accepted the messages;
 * - both summaries show it as the newest message, at its timestamp, by reference (its text
 *   is in its row only: the summary's `last_message` is left empty); the sender's unread
 *   count is cleared (writing reads the chat), the recipient's goes up by one; an archived
 *   or locked chat stays so (its count shows in the archive);
 * - each summary keeps the chat's key after the send;
 * - each person's log gets the message with the summary it made, the sender's first.
 */
export function applySend(before: SendBefore, send: SendFacts): SendEffects {
  const { chatId, msgId, senderId, recipientId, body, now } = send;
  const timestamp = Math.max(now, Math.max(Number(before.sender.timestamp), Number(before.recipient.timestamp)) + 1);
  const message = newMessage(chatId, msgId, senderId, recipientId, body, timestamp);
  const last = {
    last_message: null,
    last_id: msgId,
    last_sender: senderId,
    last_rev: 0,
    last_sealed: body.sealed ? 1 : 0,
    last_deleted: 0,
    timestamp,
  } as const;
  const key = send.chatKey === undefined ? {} : { chat_key: send.chatKey };
  const sender: SummaryRow = { ...before.sender, ...last, ...key, unread_count: 0 };
  const recipient: SummaryRow = {
    ...before.recipient,
    ...last,
    ...key,
    unread_count: before.recipient.unread_count + 1,
  };
  return {
    message,
    sender,
    recipient,
    entries: [
      { userId: senderId, update: { kind: 'message', message, chat: toChatState(sender, before.recipientProfile) } },
      { userId: recipientId, update: { kind: 'message', message, chat: toChatState(recipient, before.senderProfile) } },
    ],
  };
}

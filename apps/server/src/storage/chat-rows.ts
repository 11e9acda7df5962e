/**
 * Row mapping and the transaction steps shared by the chat and social stores: the
 * update log, summaries and inserting a message.
 */
import { type ChatMessage, type ChatSummary, chatIdOf, type PublicUser, type Update } from '@app/protocol';
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, MessagesTable, UserChatsTable, UsersTable } from './schema.ts';

export type Tx = Transaction<Database> | Kysely<Database>;

export interface LoggedUpdate {
  userId: string;
  seq: number;
  update: Update;
}

/** Why a chat operation was refused. */
export class ChatError extends Error {
  readonly code:
    | 'not_found'
    | 'forbidden'
    | 'conflict'
    | 'recipient_unavailable'
    | 'request_pending'
    | 'pin_required'
    | 'locked';
  constructor(code: ChatError['code'], message: string) {
    super(message);
    this.code = code;
  }
}

export function toMessage(r: Selectable<MessagesTable>): ChatMessage {
  return {
    chatId: r.chat_id,
    id: r.id,
    senderId: r.sender_id,
    recipientId: r.recipient_id,
    text: r.text,
    timestamp: Number(r.timestamp),
    status: r.status,
    edited: r.edited === 1,
    deleted: r.deleted === 1,
    deliveredAt: r.delivered_at === null ? null : Number(r.delivered_at),
    readAt: r.read_at === null ? null : Number(r.read_at),
  };
}

export function toPublicUser(
  r: Pick<Selectable<UsersTable>, 'id' | 'username' | 'name' | 'profile_pic' | 'verified'>,
): PublicUser {
  return { id: r.id, username: r.username, name: r.name, profilePic: r.profile_pic, verified: r.verified === 1 };
}

export const PUBLIC_COLUMNS = ['id', 'username', 'name', 'profile_pic', 'verified'] as const;

export type Entry = { userId: string; update: Update };

/** Appends updates to their users' logs (skipping users that no longer exist). */
export async function appendLog(tx: Tx, entries: Entry[], now: number): Promise<LoggedUpdate[]> {
  const out: LoggedUpdate[] = [];
  for (const { userId, update } of entries) {
    const r = await tx
      .updateTable('users')
      .set((eb) => ({ update_seq: eb('update_seq', '+', 1) }))
      .where('id', '=', userId)
      .returning('update_seq')
      .executeTakeFirst();
    if (!r) continue;
    const seq = Number(r.update_seq);
    await tx
      .insertInto('user_updates')
      .values({ user_id: userId, seq, kind: update.kind, payload: JSON.stringify(update), created_at: now })
      .execute();
    out.push({ userId, seq, update });
  }
  return out;
}

export async function publicUserOf(tx: Tx, id: string): Promise<PublicUser | null> {
  const r = await tx.selectFrom('users').select(PUBLIC_COLUMNS).where('id', '=', id).executeTakeFirst();
  return r ? toPublicUser(r) : null;
}

export function toSummary(r: Selectable<UserChatsTable>, peer: PublicUser | null): ChatSummary {
  return {
    chatId: r.chat_id,
    peerId: r.peer_id,
    peer,
    lastMessage: r.last_message,
    timestamp: Number(r.timestamp),
    unreadCount: r.unread_count,
    archived: r.archived === 1,
    locked: r.locked === 1,
  };
}

export async function summaryOf(tx: Tx, userId: string, chatId: string): Promise<ChatSummary | null> {
  const r = await tx
    .selectFrom('user_chats')
    .selectAll()
    .where('user_id', '=', userId)
    .where('chat_id', '=', chatId)
    .executeTakeFirst();
  if (!r) return null;
  return toSummary(r, await publicUserOf(tx, r.peer_id));
}

/**
 * Inserts a new message and updates both summaries; returns the message and the log
 * entries the caller appends in the same transaction.
 */
export async function insertMessage(
  tx: Tx,
  senderId: string,
  recipientId: string,
  msgId: string,
  text: string,
  now: number,
): Promise<{ message: ChatMessage; entries: Entry[] }> {
  const chatId = chatIdOf(senderId, recipientId);
  // Timestamps never go backwards within a chat, so ordering by time is ordering by arrival.
  const last = await tx
    .selectFrom('messages')
    .select('timestamp')
    .where('chat_id', '=', chatId)
    .orderBy('timestamp', 'desc')
    .limit(1)
    .executeTakeFirst();
  const timestamp = Math.max(now, last ? Number(last.timestamp) : 0);
  const row = {
    chat_id: chatId,
    id: msgId,
    sender_id: senderId,
    recipient_id: recipientId,
    text,
    timestamp,
    status: 'sent' as const,
    edited: 0 as const,
    deleted: 0 as const,
    delivered_at: null,
    read_at: null,
  };
  await tx.insertInto('messages').values(row).execute();
  await tx
    .insertInto('user_chats')
    .values({
      user_id: senderId,
      chat_id: chatId,
      peer_id: recipientId,
      last_message: text,
      timestamp,
      unread_count: 0,
      archived: 0,
      locked: 0,
    })
    .onConflict((oc) =>
      oc.columns(['user_id', 'chat_id']).doUpdateSet({ last_message: text, timestamp, unread_count: 0 }),
    )
    .execute();
  // An archived chat stays archived (its unread count shows in the archive); a locked one stays locked.
  await tx
    .insertInto('user_chats')
    .values({
      user_id: recipientId,
      chat_id: chatId,
      peer_id: senderId,
      last_message: text,
      timestamp,
      unread_count: 1,
      archived: 0,
      locked: 0,
    })
    .onConflict((oc) =>
      oc.columns(['user_id', 'chat_id']).doUpdateSet((eb) => ({
        last_message: text,
        timestamp,
        unread_count: eb('user_chats.unread_count', '+', 1),
      })),
    )
    .execute();
  const message = toMessage(row);
  const senderChat = await summaryOf(tx, senderId, chatId);
  const recipientChat = await summaryOf(tx, recipientId, chatId);
  const entries: Entry[] = [
    { userId: senderId, update: { kind: 'message', message } },
    ...(senderChat ? [{ userId: senderId, update: { kind: 'chat' as const, chat: senderChat } }] : []),
    { userId: recipientId, update: { kind: 'message', message } },
    ...(recipientChat ? [{ userId: recipientId, update: { kind: 'chat' as const, chat: recipientChat } }] : []),
  ];
  return { message, entries };
}

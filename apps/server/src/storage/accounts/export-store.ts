/**
 * The reads of "Download my data" (social/export-routes.ts): the user's contacts, how many
 * messages their chats hold, and a chat's messages oldest first one page at a time, each
 * page starting after the last one's (timestamp, id), so a chat of any length is read in
 * bounded memory. Every read is keyed by the user's own id or by one of their chats.
 */
import type { ChatMessage, PublicUser } from '@app/protocol';
import type { Kysely } from 'kysely';
import { joinedUser, toMessage } from '../messages/chat-rows.ts';
import type { Database } from '../schema.ts';

export interface ExportContact {
  userId: string;
  /** null: their account was deleted. */
  user: PublicUser | null;
  since: number;
}

/** The user's contacts (accepted requests, either way), oldest first. */
export async function contactsOf(db: Kysely<Database>, userId: string): Promise<ExportContact[]> {
  const rows = await db
    .selectFrom('contacts as c')
    .leftJoin('users as u', 'u.id', 'c.other_id')
    .select(['c.other_id', 'c.created_at', 'u.id as u_id', 'u.username', 'u.name', 'u.profile_pic', 'u.verified'])
    .where('c.user_id', '=', userId)
    .orderBy('c.created_at')
    .orderBy('c.other_id')
    .execute();
  return rows.map((r) => ({
    userId: r.other_id,
    since: Number(r.created_at),
    user: joinedUser(r),
  }));
}

/** How many messages the user's chats hold (deleted ones included: they are listed too). */
export async function messageCountOf(db: Kysely<Database>, userId: string): Promise<number> {
  const r = await db
    .selectFrom('messages as m')
    .innerJoin('user_chats as c', 'c.chat_id', 'm.chat_id')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('c.user_id', '=', userId)
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

/** Up to `limit` messages of the chat after `after` (or from the first), oldest first. */
export async function messagesAfter(
  db: Kysely<Database>,
  chatId: string,
  after: { timestamp: number; id: string } | null,
  limit: number,
): Promise<ChatMessage[]> {
  let q = db.selectFrom('messages').selectAll().where('chat_id', '=', chatId);
  if (after) {
    q = q.where((eb) =>
      eb.or([
        eb('timestamp', '>', after.timestamp),
        eb.and([eb('timestamp', '=', after.timestamp), eb('id', '>', after.id)]),
      ]),
    );
  }
  const rows = await q.orderBy('timestamp').orderBy('id').limit(limit).execute();
  return rows.map(toMessage);
}

/** Every message of the chat, oldest first, read `page` at a time. */
export async function* chatMessages(db: Kysely<Database>, chatId: string, page: number): AsyncGenerator<ChatMessage[]> {
  let after: { timestamp: number; id: string } | null = null;
  for (;;) {
    const messages = await messagesAfter(db, chatId, after, page);
    if (messages.length > 0) yield messages;
    if (messages.length < page) return;
    const last = messages[messages.length - 1] as ChatMessage;
    after = { timestamp: last.timestamp, id: last.id };
  }
}

/**
 * Pages of a chat's history, in the order the server keeps it: by (timestamp, id). A page
 * is the newest, one before or after a position (paging up, or down a window away from the
 * newest), or the one around a message (a jump far back: half older, half from it on).
 * Each is one or two index range scans on (chat_id, timestamp, id). The chat's media are the
 * same pages of its messages that carry attachments and are not deleted (each checked on
 * the attachments' (chat_id, msg_id) index as the scan goes).
 */
import type { ChatMessage } from '@app/protocol';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import { ChatError, toMessage } from './chat-rows.ts';

export interface HistoryCursor {
  timestamp: number;
  id: string;
}

export type HistoryWhere = { before: HistoryCursor } | { after: HistoryCursor } | { around: string } | object;

export interface HistoryPage {
  messages: ChatMessage[];
  /** Older messages exist before the page. */
  hasMore: boolean;
  /** Newer messages exist after the page. */
  hasNewer: boolean;
}

/** Up to `limit` messages on one side of `from` (the nearest first), and whether more lie beyond. */
async function scan(
  db: Kysely<Database>,
  chatId: string,
  limit: number,
  side: 'older' | 'newer',
  from?: HistoryCursor,
  inclusive = false,
  media = false,
): Promise<{ messages: ChatMessage[]; more: boolean }> {
  let q = db.selectFrom('messages').selectAll().where('chat_id', '=', chatId);
  if (media) {
    q = q
      .where('deleted', '=', 0)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('attachments as a')
            .select('a.id')
            .whereRef('a.chat_id', '=', 'messages.chat_id')
            .whereRef('a.msg_id', '=', 'messages.id')
            .whereRef('a.owner_id', '=', 'messages.sender_id'),
        ),
      );
  }
  if (from) {
    const cmp = side === 'older' ? '<' : '>';
    const idCmp = inclusive ? (side === 'older' ? '<=' : '>=') : cmp;
    q = q.where((eb) =>
      eb.or([
        eb('timestamp', cmp, from.timestamp),
        eb.and([eb('timestamp', '=', from.timestamp), eb('id', idCmp, from.id)]),
      ]),
    );
  }
  const dir = side === 'older' ? 'desc' : 'asc';
  const rows = await q
    .orderBy('timestamp', dir)
    .orderBy('id', dir)
    .limit(limit + 1)
    .execute();
  return { messages: rows.slice(0, limit).map(toMessage), more: rows.length > limit };
}

/**
 * A page of the chat, oldest first. `around` a message not of this chat: not_found. With
 * `media`, only messages carrying attachments (the newest page, or before a position).
 */
export async function historyPage(
  db: Kysely<Database>,
  chatId: string,
  limit: number,
  where: HistoryWhere,
  media = false,
): Promise<HistoryPage> {
  if (media && ('after' in where || 'around' in where))
    throw new ChatError('invalid_frame', 'Media are paged with before only');
  if ('after' in where) {
    const newer = await scan(db, chatId, limit, 'newer', where.after);
    return { messages: newer.messages, hasMore: true, hasNewer: newer.more };
  }
  if ('around' in where) {
    const target = await db
      .selectFrom('messages')
      .select(['timestamp', 'id'])
      .where('chat_id', '=', chatId)
      .where('id', '=', where.around)
      .executeTakeFirst();
    if (!target) throw new ChatError('not_found', 'Message not found');
    const at = { timestamp: Number(target.timestamp), id: target.id };
    const olderCount = Math.floor(limit / 2);
    const [older, newer] = await Promise.all([
      scan(db, chatId, olderCount, 'older', at),
      scan(db, chatId, limit - olderCount, 'newer', at, true),
    ]);
    return {
      messages: [...older.messages.reverse(), ...newer.messages],
      hasMore: older.more,
      hasNewer: newer.more,
    };
  }
  const older = await scan(db, chatId, limit, 'older', 'before' in where ? where.before : undefined, false, media);
  return { messages: older.messages.reverse(), hasMore: older.more, hasNewer: 'before' in where };
}

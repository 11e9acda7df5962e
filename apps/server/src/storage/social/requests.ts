/**
 * Contact requests: who may message whom, a stranger's first message turned into a
 * request, and the notification items they show as. Used inside the transactions of the
 * chat and notification stores.
 */
import { type Access, chatIdOf, type NotificationItem } from '@app/protocol';
import type { Selectable } from 'kysely';
import { newId } from '../ids.ts';
import { appendLog, ChatError, type LoggedUpdate, type StoredText, wireText } from '../messages/chat-rows.ts';
import type { Tx } from '../program.ts';
import type { UserNotificationsTable } from '../schema.ts';

/** A personal notification (a request, or news about one) as its user sees it. */
export function toPersonal(r: Selectable<UserNotificationsTable>): NotificationItem {
  if (r.type === 'request' && r.from_id) {
    return {
      type: 'request',
      id: r.id,
      fromId: r.from_id,
      fromUsername: r.from_username ?? '',
      msgId: r.msg_id ?? '',
      ...wireText(r.message, r.sealed, false),
      timestamp: Number(r.timestamp),
      read: r.read === 1,
    };
  }
  return { type: 'info', id: r.id, message: r.message, timestamp: Number(r.timestamp), read: r.read === 1 };
}

/** A request as its sender sees it: waiting, with its sealed first message. */
export function pendingAccess(r: Selectable<UserNotificationsTable>): Access {
  return {
    state: 'pending',
    msgId: r.msg_id ?? '',
    ...wireText(r.message, r.sealed, false),
    timestamp: Number(r.timestamp),
  };
}

/** The newest pending contact request from `from` to `to`. */
export async function pendingRequest(tx: Tx, from: string, to: string) {
  return tx
    .selectFrom('user_notifications')
    .selectAll()
    .where('user_id', '=', to)
    .where('from_id', '=', from)
    .where('type', '=', 'request')
    .orderBy('timestamp', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * May `me` message `peer`? Yes unless the peer takes messages from contacts only and
 * `me` is neither their contact nor someone they have written to.
 */
export async function accessOf(tx: Tx, me: string, peer: string): Promise<Access> {
  const settings = await tx
    .selectFrom('user_settings')
    .select('require_request')
    .where('user_id', '=', peer)
    .executeTakeFirst();
  if ((settings?.require_request ?? 0) === 0) return { state: 'open' };
  const contact = await tx
    .selectFrom('contacts')
    .select('other_id')
    .where('user_id', '=', peer)
    .where('other_id', '=', me)
    .executeTakeFirst();
  if (contact) return { state: 'open' };
  const wrote = await tx
    .selectFrom('messages')
    .select('id')
    .where('chat_id', '=', chatIdOf(me, peer))
    .where('sender_id', '=', peer)
    .limit(1)
    .executeTakeFirst();
  if (wrote) return { state: 'open' };
  const pending = await pendingRequest(tx, me, peer);
  if (pending) return pendingAccess(pending);
  return { state: 'request' };
}

/** The stranger's first message becomes a contact request to `to`. */
export async function createRequest(
  tx: Tx,
  from: string,
  to: string,
  msgId: string,
  body: StoredText,
  now: number,
): Promise<{ request: Access; updates: LoggedUpdate[] }> {
  const sender = await tx.selectFrom('users').select('username').where('id', '=', from).executeTakeFirst();
  if (!sender) throw new ChatError('not_found', 'Account not found');
  const row = {
    id: newId(),
    user_id: to,
    type: 'request' as const,
    from_id: from,
    from_username: sender.username,
    message: body.text,
    sealed: body.sealed ? (1 as const) : (0 as const),
    timestamp: now,
    read: 0 as const,
    msg_id: msgId,
  };
  await tx.insertInto('user_notifications').values(row).execute();
  const request = pendingAccess(row);
  const updates = await appendLog(
    tx,
    [
      { userId: to, update: { kind: 'notification', notification: toPersonal(row) } },
      { userId: from, update: { kind: 'access', peerId: to, access: request } },
    ],
    now,
  );
  return { request, updates };
}

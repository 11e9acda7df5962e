/**
 * Records of an export as Parley rows, for rtdb-importer.ts: an account with no password,
 * and one chat (messages/{chatId}): its messages in time order as rows from before
 * end-to-end encryption, and a participant's summary showing the newest of them.
 */
import type { Insertable } from 'kysely';
import { NO_PASSWORD } from '../auth/passwords.ts';
import { newTimeOrderedId } from '../storage/ids.ts';
import type { MessageRow, SummaryRow } from '../storage/maintenance/rtdb-import-store.ts';
import type { UsersTable } from '../storage/schema.ts';
import { type SourceMessage, type SourceUser, sourceMessageSchema, why } from './rtdb-export.ts';

export const bit = (b: boolean | undefined) => (b ? 1 : 0) as 0 | 1;

/** users/{uid} as an account: offline until they connect, no password, no keys. */
export function accountRow(
  id: string,
  u: SourceUser,
  pinHash: string | null,
  now: number,
): Insertable<UsersTable> & { id: string } {
  return {
    id,
    username: u.username,
    username_lower: u.username.toLowerCase(),
    name: u.name?.trim() || u.username,
    email: u.email,
    email_lower: u.email.toLowerCase(),
    email_verified: 0,
    phone: u.phone?.trim() ?? '',
    age: u.age ?? 0,
    profile_pic: u.profilePic ?? null,
    password_hash: NO_PASSWORD,
    created_at: u.createdAt ?? now,
    updated_at: u.updatedAt,
    status: 'offline',
    last_seen: u.lastSeen,
    verified: bit(u.verified),
    blocked: bit(u.blocked),
    pin_hash: pinHash,
    pin_failures: 0,
    pin_locked_until: null,
    update_seq: 0,
    notifications_seen_at: null,
    kdf: null,
    kdf_salt: null,
    email_login: null,
    // No legacy password either: prelogin answers as for an unknown login, and sign-in fails.
    auth_version: 1,
  };
}

/** The chat's usable messages, oldest first; each one that is not, given to `skip`. */
export function parseMessages(
  path: string,
  value: Record<string, unknown>,
  people: readonly [string, string],
  skip: (path: string, reason: string) => void,
): { sourceId: string; m: SourceMessage }[] {
  const parsed: { sourceId: string; m: SourceMessage }[] = [];
  for (const [id, raw] of Object.entries(value)) {
    const m = sourceMessageSchema.safeParse(raw);
    if (!m.success) skip(`${path}/${id}`, why(m.error));
    else if (!people.includes(m.data.senderId)) skip(`${path}/${id}`, 'sender is not in this chat');
    else if (!m.data.deleted && m.data.text.trim() === '') skip(`${path}/${id}`, 'empty text (the app sends none)');
    else parsed.push({ sourceId: id, m: m.data });
  }
  // The original's push ids sort by time; the timestamp decides, the key breaks ties.
  return parsed.sort((x, y) => x.m.timestamp - y.m.timestamp || (x.sourceId < y.sourceId ? -1 : 1));
}

/** Message rows; `newOf` maps an original user id to its account. */
export function messageRows(
  parsed: { sourceId: string; m: SourceMessage }[],
  chatId: string,
  [a, b]: readonly [string, string],
  newOf: (sourceUid: string) => string,
): { sourceId: string; row: MessageRow }[] {
  return parsed.map(({ sourceId, m }) => {
    const deleted = bit(m.deleted);
    const row: MessageRow = {
      chat_id: chatId,
      // Sorts by time, then by import order within a millisecond (as the chat is ordered).
      id: newTimeOrderedId(m.timestamp),
      sender_id: newOf(m.senderId),
      recipient_id: newOf(m.senderId === a ? b : a),
      // A deleted message keeps no text, as a deletion in Parley leaves it.
      text: deleted ? '' : m.text,
      sealed: 0,
      rev: 0,
      timestamp: m.timestamp,
      status: m.status,
      edited: deleted ? 0 : bit(m.edited),
      deleted,
      delivered_at: m.deliveredAt,
      read_at: m.readAt,
    };
    return { sourceId, row };
  });
}

/** `user`'s summary of the chat whose newest message is `head`. */
export function summaryRow(
  head: MessageRow,
  user: string,
  peer: string,
  flags: { unreadCount: number; archived: boolean; locked: boolean },
): SummaryRow {
  return {
    user_id: user,
    chat_id: head.chat_id,
    peer_id: peer,
    last_message: head.deleted ? '' : head.text,
    last_id: head.id,
    last_sender: head.sender_id,
    last_rev: 0,
    last_sealed: 0,
    last_deleted: head.deleted,
    chat_key: null,
    timestamp: head.timestamp,
    unread_count: flags.unreadCount,
    archived: bit(flags.archived),
    locked: bit(flags.locked),
  };
}

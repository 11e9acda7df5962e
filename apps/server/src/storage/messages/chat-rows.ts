/**
 * Row mapping and the transaction steps shared by the chat and social stores: the
 * update log, summaries and inserting a message.
 */
import {
  type ChatMessage,
  type ChatState,
  type ChatSummary,
  DELETED_TEXT,
  type PublicUser,
  type Update,
  type WsErrorCode,
} from '@app/protocol';
import type { Selectable } from 'kysely';
import { type Program, query, runProgram, type Stmt, stmt, type Tx } from '../program.ts';
import type { Bool, MessagesTable, UserChatsTable, UsersTable } from '../schema.ts';
import { logPayloadOf } from './log-payload.ts';

export interface LoggedUpdate {
  userId: string;
  seq: number;
  update: Update;
}

/** Why a chat operation was refused. */
export class ChatError extends Error {
  readonly code: WsErrorCode;
  constructor(code: ChatError['code'], message: string) {
    super(message);
    this.code = code;
  }
}

/** A message's text as stored: its ciphertext (sealed), or the text of a message from before. */
export interface StoredText {
  text: string;
  sealed: boolean;
}

/**
 * What a stored text is on the wire: a ciphertext, or a message's text from before
 * encryption. A deleted message keeps only its sender's tombstone (a ciphertext too), or
 * nothing when it was deleted without one (before tombstones, or in a keyless chat).
 */
export function wireText(text: string | null, sealed: number | boolean, deleted: number | boolean) {
  const isSealed = sealed === 1 || sealed === true;
  if (deleted === 1 || deleted === true || text === null) {
    return { ct: isSealed && text ? text : null, legacyText: null };
  }
  return isSealed ? { ct: text, legacyText: null } : { ct: null, legacyText: text };
}

export function toMessage(r: Selectable<MessagesTable>): ChatMessage {
  return {
    chatId: r.chat_id,
    id: r.id,
    senderId: r.sender_id,
    recipientId: r.recipient_id,
    ...wireText(r.text, r.sealed, r.deleted),
    rev: r.rev,
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

/** The peer of a row left-joined with users (`u_id`: the joined id), or null when they are gone. */
export function joinedUser(r: {
  u_id: string | null;
  username: string | null;
  name: string | null;
  profile_pic: string | null;
  verified: Bool | null;
}): PublicUser | null {
  if (!r.u_id || r.username === null || r.name === null || r.verified === null) return null;
  return toPublicUser({
    id: r.u_id,
    username: r.username,
    name: r.name,
    profile_pic: r.profile_pic,
    verified: r.verified,
  });
}

export const PUBLIC_COLUMNS = ['id', 'username', 'name', 'profile_pic', 'verified'] as const;

export type Entry = { userId: string; update: Update };

const BUMP_SEQ = stmt('update users set update_seq = update_seq + ? where id = ? returning update_seq');
const BUMP_TWO_SEQS = stmt(
  'update users set update_seq = update_seq + (case when id = ? then cast(? as integer) else cast(? as integer) end) where id in (?, ?) returning id, update_seq',
);
const insertUpdates = new Map<number, Stmt>();
function insertUpdatesStmt(rows: number): Stmt {
  let s = insertUpdates.get(rows);
  if (!s) {
    const values = Array.from({ length: rows }, () => '(?, ?, ?, ?, ?)').join(', ');
    s = stmt(`insert into user_updates (user_id, seq, kind, payload, created_at) values ${values}`);
    insertUpdates.set(rows, s);
  }
  return s;
}

/** Updates' JSON on the wire (the log stores them without texts: log-payload.ts), serialized once per update. */
const payloads = new WeakMap<Update, string>();

/** The JSON of an update (serialized once per update object). */
export function payloadOf(update: Update): string {
  let text = payloads.get(update);
  if (text === undefined) {
    text = JSON.stringify(update);
    payloads.set(update, text);
  }
  return text;
}

/**
 * Appends updates to their users' logs (skipping users that no longer exist): one seq
 * bump per user (in id order, so concurrent transactions lock users alike) and one insert.
 */
export function* appendLogProgram(entries: Entry[], now: number): Program<LoggedUpdate[]> {
  if (entries.length === 0) return [];
  const counts = new Map<string, number>();
  for (const e of entries) counts.set(e.userId, (counts.get(e.userId) ?? 0) + 1);
  const next = new Map<string, number>();
  const users = [...counts.keys()].sort();
  if (users.length === 2) {
    // The usual case (a message: sender and recipient) in one statement; both engines
    // visit (and lock) the two rows in the same order for every such statement.
    const [a, b] = users as [string, string];
    const rows = yield* query<{ id: string; update_seq: number }>(BUMP_TWO_SEQS, [
      a,
      counts.get(a),
      counts.get(b),
      a,
      b,
    ]);
    for (const row of rows) next.set(row.id, Number(row.update_seq) - (counts.get(row.id) as number) + 1);
  } else {
    for (const userId of users) {
      const k = counts.get(userId) as number;
      const [row] = yield* query<{ update_seq: number }>(BUMP_SEQ, [k, userId]);
      if (row) next.set(userId, Number(row.update_seq) - k + 1);
    }
  }
  const out: LoggedUpdate[] = [];
  const params: unknown[] = [];
  for (const { userId, update } of entries) {
    const seq = next.get(userId);
    if (seq === undefined) continue;
    next.set(userId, seq + 1);
    out.push({ userId, seq, update });
    params.push(userId, seq, update.kind, logPayloadOf(update), now);
  }
  for (let i = 0; i < out.length; i += 100) {
    const rows = Math.min(100, out.length - i);
    yield* query(insertUpdatesStmt(rows), params.slice(i * 5, (i + rows) * 5));
  }
  return out;
}

export function appendLog(tx: Tx, entries: Entry[], now: number): Promise<LoggedUpdate[]> {
  return runProgram(tx, appendLogProgram(entries, now));
}

export async function publicUserOf(tx: Tx, id: string): Promise<PublicUser | null> {
  const r = await tx.selectFrom('users').select(PUBLIC_COLUMNS).where('id', '=', id).executeTakeFirst();
  return r ? toPublicUser(r) : null;
}

/** A summary row without its newest message (see chatStateSchema). */
export function toChatState(r: Selectable<UserChatsTable>, peer: PublicUser | null): ChatState {
  return {
    chatId: r.chat_id,
    peerId: r.peer_id,
    peer,
    timestamp: Number(r.timestamp),
    unreadCount: r.unread_count,
    archived: r.archived === 1,
    locked: r.locked === 1,
    pinnedAt: r.pinned_at === null ? null : Number(r.pinned_at),
    mutedUntil: r.muted_until === null ? null : Number(r.muted_until),
    markedUnread: r.marked_unread === 1,
  };
}

/**
 * A summary's newest message as its row is now (left-joined on the summary's `last_id`):
 * summaries refer to it rather than copy its text (docs/scaling.md, "Fewer writes per
 * send"). Null columns: no such row (an empty chat, a message gone with its sender's
 * account); the summary's own last_* columns are then what it shows (a summary written
 * before 1.1 keeps its copy there).
 */
export interface LastJoined {
  m_text: string | null;
  m_sealed: Bool | null;
  m_rev: number | null;
  m_deleted: Bool | null;
}

/** LastJoined's columns, for a query on `user_chats as c` left-joined with `messages as m` on the summary's last message. */
export const LAST_JOINED = [
  'm.text as m_text',
  'm.sealed as m_sealed',
  'm.rev as m_rev',
  'm.deleted as m_deleted',
] as const;

export function toSummary(r: Selectable<UserChatsTable> & LastJoined, peer: PublicUser | null): ChatSummary {
  const joined = r.m_text !== null;
  const text = joined ? r.m_text : r.last_message;
  const sealed = joined ? (r.m_sealed as Bool) : r.last_sealed;
  // A summary from before sealed messages said it was deleted in its text.
  const deleted = joined ? r.m_deleted === 1 : r.last_deleted === 1 || (sealed === 0 && text === DELETED_TEXT);
  return {
    ...toChatState(r, peer),
    last:
      text === null && !deleted
        ? null
        : {
            id: r.last_id ?? '',
            senderId: r.last_sender ?? '',
            rev: joined ? (r.m_rev as number) : r.last_rev,
            deleted,
            ...wireText(text, sealed, deleted),
          },
  };
}

export async function summaryOf(tx: Tx, userId: string, chatId: string): Promise<ChatSummary | null> {
  const r = await tx
    .selectFrom('user_chats as c')
    .leftJoin('messages as m', (j) => j.onRef('m.chat_id', '=', 'c.chat_id').onRef('m.id', '=', 'c.last_id'))
    .selectAll('c')
    .select(LAST_JOINED)
    .where('c.user_id', '=', userId)
    .where('c.chat_id', '=', chatId)
    .executeTakeFirst();
  if (!r) return null;
  return toSummary(r, await publicUserOf(tx, r.peer_id));
}

/** A message as a send stores it: revision 0, 'sent', nothing delivered or read yet. */
export function newMessage(
  chatId: string,
  msgId: string,
  senderId: string,
  recipientId: string,
  body: StoredText,
  timestamp: number,
): ChatMessage {
  return {
    chatId,
    id: msgId,
    senderId,
    recipientId,
    ...wireText(body.text, body.sealed, false),
    rev: 0,
    timestamp,
    status: 'sent',
    edited: false,
    deleted: false,
    deliveredAt: null,
    readAt: null,
  };
}

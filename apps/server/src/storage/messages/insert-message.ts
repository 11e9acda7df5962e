/**
 * A message stored by single statements, in the caller's transaction: both summaries read
 * (locked on PostgreSQL, made first for a new chat), changed as applySend says, and the
 * message inserted. A send (send-program.ts) and an accepted contact request
 * (social/notification-store.ts) store their message this way; PostgreSQL's grouped sends
 * write the same effects set-based (send-batch.ts).
 */
import type { PublicUser } from '@app/protocol';
import type { Selectable } from 'kysely';
import { type Program, query, runProgram, stmt, type Tx } from '../program.ts';
import type { UsersTable } from '../schema.ts';
import { applySend, type SendEffects, type SendFacts, type SummaryRow } from './apply-send.ts';
import { type PUBLIC_COLUMNS, toPublicUser } from './chat-rows.ts';

/**
 * Both people's summaries of a chat, in user id order; on PostgreSQL locked until the
 * transaction ends, so two sends in one chat committing at once read one after the other.
 */
export const SUMMARIES = stmt(
  'select * from user_chats where chat_id = ? and user_id in (?, ?) order by user_id',
  ' for no key update',
);
/**
 * A new chat's summaries, blank (no message, timestamp 0, not archived or locked), where there are none yet. On
 * PostgreSQL a concurrent transaction making the same row first is waited for, and its
 * row is then read (and locked) instead.
 */
const NEW_SUMMARIES = stmt(
  'insert into user_chats (user_id, chat_id, peer_id, last_rev, last_sealed, last_deleted, timestamp, unread_count, archived, locked) ' +
    'values (?, ?, ?, 0, 0, 0, 0, 0, 0, 0), (?, ?, ?, 0, 0, 0, 0, 0, 0, 0) on conflict (user_id, chat_id) do nothing',
);
const WRITE_SUMMARY = stmt(
  'update user_chats set last_message = ?, last_id = ?, last_sender = ?, last_rev = ?, last_sealed = ?, last_deleted = ?, ' +
    'chat_key = ?, timestamp = ?, unread_count = ? where user_id = ? and chat_id = ?',
);
const INSERT_MESSAGE = stmt(
  'insert into messages (chat_id, id, sender_id, recipient_id, text, sealed, rev, timestamp, status, edited, deleted, delivered_at, read_at) ' +
    "values (?, ?, ?, ?, ?, ?, 0, ?, 'sent', 0, 0, null, null)",
);
const PUBLIC_USER = stmt('select id, username, name, profile_pic, verified from users where id = ?');

/** What the caller has read already: the chat's summaries (SUMMARIES), both public profiles. */
export interface KnownBefore {
  summaries: SummaryRow[];
  senderProfile: PublicUser | null;
  recipientProfile: PublicUser | null;
}

function* profileOf(id: string): Program<PublicUser | null> {
  const [r] = yield* query<Pick<Selectable<UsersTable>, (typeof PUBLIC_COLUMNS)[number]>>(PUBLIC_USER, [id]);
  return r ? toPublicUser(r) : null;
}

/** Stores a message and changes both summaries (applySend); returns its effects, log entries not yet appended. */
export function* insertMessageProgram(send: SendFacts, known?: KnownBefore): Program<SendEffects> {
  const { chatId, senderId, recipientId, body } = send;
  let rows = known?.summaries ?? (yield* query<SummaryRow>(SUMMARIES, [chatId, senderId, recipientId]));
  if (rows.length < 2) {
    yield* query(NEW_SUMMARIES, [senderId, chatId, recipientId, recipientId, chatId, senderId]);
    rows = yield* query<SummaryRow>(SUMMARIES, [chatId, senderId, recipientId]);
  }
  const summary = (userId: string) => {
    const row = rows.find((r) => r.user_id === userId);
    if (!row) throw new Error(`no summary of ${chatId} for its participant`);
    return row;
  };
  const effects = applySend(
    {
      sender: summary(senderId),
      recipient: summary(recipientId),
      senderProfile: known ? known.senderProfile : yield* profileOf(senderId),
      recipientProfile: known ? known.recipientProfile : yield* profileOf(recipientId),
    },
    send,
  );
  // Both summaries in user id order, as SUMMARIES locked them.
  for (const r of [effects.sender, effects.recipient].sort((a, b) => (a.user_id < b.user_id ? -1 : 1))) {
    yield* query(WRITE_SUMMARY, [
      r.last_message,
      r.last_id,
      r.last_sender,
      r.last_rev,
      r.last_sealed,
      r.last_deleted,
      r.chat_key,
      r.timestamp,
      r.unread_count,
      r.user_id,
      r.chat_id,
    ]);
  }
  const m = effects.message;
  yield* query(INSERT_MESSAGE, [chatId, m.id, senderId, recipientId, body.text, body.sealed ? 1 : 0, m.timestamp]);
  return effects;
}

export function insertMessage(tx: Tx, send: SendFacts): Promise<SendEffects> {
  return runProgram(tx, insertMessageProgram(send));
}

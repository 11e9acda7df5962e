/**
 * PostgreSQL's grouped sends: the sends of one group commit (group-commit.ts) written with
 * a fixed number of set-based statements, whatever their number: their context read at
 * once, their messages inserted at once (unnest arrays), their summaries updated at once,
 * their users' log seqs bumped at once and their log entries inserted at once. Each send
 * is still checked alone (planSend, the same rules as a single send) and refused alone;
 * what the set-based path does not cover (a retried id, a new chat or chat key, contact
 * requests) is sent back to run as a single send after the commit, and with it every later
 * send of the same chat in the group, so a chat's messages keep their order.
 *
 * Locks are taken in the order every message transaction takes them (send-program.ts,
 * chat-rows.ts): both people FOR KEY SHARE; summary rows in (user, chat) order; users'
 * rows, for their seqs, in id order. Concurrent groups and single sends cannot deadlock.
 */
import { type ChatMessage, type ChatState, chatIdOf, type PublicUser } from '@app/protocol';
import { CompiledQuery, type Selectable, type Transaction } from 'kysely';
import { type Entry, type LoggedUpdate, NEEDS_ASYNC, payloadOf, runWithoutSteps, toPublicUser } from './chat-rows.ts';
import type { BatchOutcome } from './group-commit.ts';
import type { Database, UserChatsTable } from './schema.ts';
import { planSend, type SendContextRow, type SendInput, type SendPlan, type SendResult } from './send-program.ts';

type Person = Omit<SendContextRow, 'chat_timestamp' | 'stored_sender' | 'session_expires' | 'chat_key'>;

/**
 * What a group reads before it decides, in one statement (each part a JSON array):
 * both people of every send (FOR KEY SHARE, in id order), then their summaries of the
 * chats (FOR NO KEY UPDATE, in (user, chat) order: the group writes them), the sends'
 * ids already stored (retries), and when the sessions they came from end.
 */
const CONTEXT =
  'with p as (select u.id, u.username, u.name, u.profile_pic, u.verified, u.blocked, s.require_request, ' +
  '(select uk_epoch from user_keys k where k.user_id = u.id) as uk_epoch ' +
  'from users u left join user_settings s on s.user_id = u.id where u.id = any($1::text[]) order by u.id for key share of u), ' +
  'c as (select * from user_chats where (user_id, chat_id) in (select * from unnest($2::text[], $3::text[])) ' +
  'order by user_id, chat_id for no key update) ' +
  "select (select coalesce(json_agg(p), '[]') from p) as people, " +
  "(select coalesce(json_agg(c), '[]') from c) as summaries, " +
  "(select coalesce(json_agg(m), '[]') from (select chat_id, id, sender_id from messages " +
  'where (chat_id, id) in (select * from unnest($4::text[], $5::text[]))) m) as stored, ' +
  "(select coalesce(json_agg(x), '[]') from (select token_hash, expires_at from sessions " +
  'where token_hash = any($6::text[])) x) as sessions';
/**
 * The group's messages and summaries written, in one statement, and its users' rows
 * locked for their seqs, in id order (the summaries are locked already; new messages
 * lock nothing anyone else waits for).
 */
const WRITE =
  'with s as (update user_chats c set last_message = t.text, last_id = t.msg_id, last_sender = t.sender, last_rev = 0, ' +
  'last_sealed = 1, last_deleted = 0, timestamp = t.ts, unread_count = t.unread ' +
  'from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::int[]) ' +
  'as t(user_id, chat_id, text, msg_id, sender, ts, unread) where c.user_id = t.user_id and c.chat_id = t.chat_id returning 1), ' +
  'm as (insert into messages (chat_id, id, sender_id, recipient_id, text, sealed, rev, timestamp, status, edited, deleted, delivered_at, read_at) ' +
  "select t.chat_id, t.id, t.sender, t.recipient, t.text, 1, 0, t.ts, 'sent', 0, 0, null, null " +
  'from unnest($8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::bigint[]) as t(chat_id, id, sender, recipient, text, ts) returning 1) ' +
  'select (select count(*) from s)::int as summaries, (select count(*) from m)::int as messages, ' +
  '(select count(*) from (select id from users where id = any($14::text[]) order by id for no key update) l)::int as users';
/**
 * The users' seqs bumped and the log entries inserted, in one statement: entry `k` (from
 * 1) of a user in this group gets the user's seq before the group plus k.
 */
const LOG =
  'with b as (update users u set update_seq = u.update_seq + t.n from unnest($1::text[], $2::int[]) as t(id, n) ' +
  'where u.id = t.id returning u.id, u.update_seq - t.n as base), ' +
  'i as (insert into user_updates (user_id, seq, kind, payload, created_at) ' +
  'select e.user_id, b.base + e.k, e.kind, e.payload, e.created_at ' +
  'from unnest($3::text[], $4::int[], $5::text[], $6::text[], $7::bigint[]) as e(user_id, k, kind, payload, created_at) ' +
  'join b on b.id = e.user_id returning 1) ' +
  'select b.id, b.base, (select count(*) from i)::int as logged from b';

async function rows<R>(tx: Transaction<Database>, sql: string, params: unknown[]): Promise<R[]> {
  return (await tx.executeQuery<R>(CompiledQuery.raw(sql, params))).rows;
}

const key = (a: string, b: string) => `${a}\n${b}`;

/** What the group reads before it decides: both people of every send, their summaries, stored ids, sessions. */
interface Context {
  people: Map<string, Person>;
  summaries: Map<string, Selectable<UserChatsTable>>;
  stored: Map<string, string>;
  sessions: Map<string, number>;
}

async function readContext(tx: Transaction<Database>, sends: SendInput[]): Promise<Context> {
  const ids = [...new Set(sends.flatMap((s) => [s.senderId, s.recipientId]))].sort();
  const pairs = new Map<string, [string, string]>();
  for (const s of sends) {
    const chatId = chatIdOf(s.senderId, s.recipientId);
    pairs.set(key(s.senderId, chatId), [s.senderId, chatId]);
    pairs.set(key(s.recipientId, chatId), [s.recipientId, chatId]);
  }
  const [row] = await rows<{
    people: Person[];
    summaries: Selectable<UserChatsTable>[];
    stored: { chat_id: string; id: string; sender_id: string }[];
    sessions: { token_hash: string; expires_at: number }[];
  }>(tx, CONTEXT, [
    ids,
    [...pairs.values()].map((p) => p[0]),
    [...pairs.values()].map((p) => p[1]),
    sends.map((s) => chatIdOf(s.senderId, s.recipientId)),
    sends.map((s) => s.msgId),
    [...new Set(sends.flatMap((s) => (s.session === null ? [] : [s.session])))],
  ]);
  if (!row) throw new Error('The context query returned nothing');
  return {
    people: new Map(row.people.map((p) => [p.id, p])),
    summaries: new Map(row.summaries.map((r) => [key(r.user_id, r.chat_id), r])),
    stored: new Map(row.stored.map((r) => [key(r.chat_id, r.id), r.sender_id])),
    sessions: new Map(row.sessions.map((r) => [r.token_hash, Number(r.expires_at)])),
  };
}

/** The rows SEND_CONTEXT would have read for this send, from the group's context. */
function contextRows(ctx: Context, s: SendInput, chatId: string): SendContextRow[] {
  const out: SendContextRow[] = [];
  for (const id of [s.senderId, s.recipientId].sort()) {
    const p = ctx.people.get(id);
    if (!p || out.some((o) => o.id === id)) continue;
    const summary = ctx.summaries.get(key(id, chatId));
    out.push({
      ...p,
      chat_timestamp: summary ? Number(summary.timestamp) : null,
      stored_sender: ctx.stored.get(key(chatId, s.msgId)) ?? null,
      session_expires: s.session === null ? null : (ctx.sessions.get(s.session) ?? null),
      chat_key: summary?.chat_key ?? null,
    });
  }
  return out;
}

/** A send the set-based path writes. */
interface Planned {
  index: number;
  input: SendInput;
  chatId: string;
  plan: SendPlan;
}

/**
 * Runs a group of sends in `tx`: each one's outcome, in order (see the file comment).
 * Throws when the group must be undone as a whole (a statement failed, a summary row
 * vanished): the group commit then runs every send alone.
 */
export async function sendBatch(tx: Transaction<Database>, sends: SendInput[]): Promise<BatchOutcome[]> {
  const ctx = await readContext(tx, sends);
  // A send is written here, refused, or run alone after the commit, in order with the
  // rest of its chat's (the chat id is its chain).
  const outcomes: BatchOutcome[] = sends.map((s) => ({ alone: chatIdOf(s.senderId, s.recipientId) }));
  /** Chats with a send that runs alone: their later sends run alone too. */
  const alone = new Set<string>();
  /** Message ids already in this group: a repeat runs alone (answered as a retry). */
  const ids = new Set<string>();
  const planned: Planned[] = [];
  sends.forEach((input, index) => {
    const chatId = chatIdOf(input.senderId, input.recipientId);
    const id = key(chatId, input.msgId);
    if (alone.has(chatId) || ids.has(id)) {
      alone.add(chatId);
      return;
    }
    ids.add(id);
    try {
      const plan = runWithoutSteps(planSend(input, contextRows(ctx, input, chatId)));
      const both = ctx.summaries.has(key(input.senderId, chatId)) && ctx.summaries.has(key(input.recipientId, chatId));
      if (
        plan === NEEDS_ASYNC ||
        !('sender' in plan) ||
        plan.keyAfter !== plan.known ||
        plan.back.state !== 'open' ||
        !both
      ) {
        alone.add(chatId);
        return;
      }
      planned.push({ index, input, chatId, plan });
    } catch (error) {
      outcomes[index] = { error };
    }
  });
  if (planned.length === 0) return outcomes;
  const results = await write(tx, ctx, planned);
  planned.forEach((p, i) => {
    outcomes[p.index] = { value: results[i] };
  });
  return outcomes;
}

/** A summary row as the group leaves it. */
interface SummaryAfter {
  row: Selectable<UserChatsTable>;
  timestamp: number;
  unread: number;
  last: ChatMessage | null;
}

async function write(tx: Transaction<Database>, ctx: Context, planned: Planned[]): Promise<SendResult[]> {
  const summaries = new Map<string, SummaryAfter>();
  const after = (userId: string, chatId: string): SummaryAfter => {
    const k = key(userId, chatId);
    let s = summaries.get(k);
    if (!s) {
      const row = ctx.summaries.get(k) as Selectable<UserChatsTable>;
      s = { row, timestamp: Number(row.timestamp), unread: row.unread_count, last: null };
      summaries.set(k, s);
    }
    return s;
  };
  const state = (s: SummaryAfter, peer: PublicUser | null): ChatState => ({
    chatId: s.row.chat_id,
    peerId: s.row.peer_id,
    peer,
    timestamp: s.timestamp,
    unreadCount: s.unread,
    archived: s.row.archived === 1,
    locked: s.row.locked === 1,
  });
  const messages: ChatMessage[] = [];
  const entries: Entry[] = [];
  for (const { input, chatId, plan } of planned) {
    const mine = after(input.senderId, chatId);
    const theirs = after(input.recipientId, chatId);
    // Strictly increasing within the chat (as insertMessageProgram): past both summaries.
    const timestamp = Math.max(input.now, Math.max(mine.timestamp, theirs.timestamp) + 1);
    const message: ChatMessage = {
      chatId,
      id: input.msgId,
      senderId: input.senderId,
      recipientId: input.recipientId,
      ct: input.sealed.ct,
      legacyText: null,
      rev: 0,
      timestamp,
      status: 'sent',
      edited: false,
      deleted: false,
      deliveredAt: null,
      readAt: null,
    };
    messages.push(message);
    Object.assign(mine, { timestamp, unread: 0, last: message });
    Object.assign(theirs, { timestamp, unread: theirs.unread + 1, last: message });
    entries.push(
      { userId: input.senderId, update: { kind: 'message', message, chat: state(mine, toPublicUser(plan.recipient)) } },
      {
        userId: input.recipientId,
        update: { kind: 'message', message, chat: state(theirs, toPublicUser(plan.sender)) },
      },
    );
  }
  const changed = [...summaries.values()].filter((s) => s.last !== null);
  const users = [...new Set(entries.map((e) => e.userId))].sort();
  const [written] = await rows<{ summaries: number; messages: number; users: number }>(tx, WRITE, [
    changed.map((s) => s.row.user_id),
    changed.map((s) => s.row.chat_id),
    changed.map((s) => s.last?.ct),
    changed.map((s) => s.last?.id),
    changed.map((s) => s.last?.senderId),
    changed.map((s) => s.timestamp),
    changed.map((s) => s.unread),
    messages.map((m) => m.chatId),
    messages.map((m) => m.id),
    messages.map((m) => m.senderId),
    messages.map((m) => m.recipientId),
    messages.map((m) => m.ct),
    messages.map((m) => m.timestamp),
    users,
  ]);
  // All were locked (readContext): one missing means a change this path did not expect.
  if (written?.summaries !== changed.length || written.users !== users.length) {
    throw new Error('A summary or a user changed under a grouped send');
  }
  const logged = await appendLogSet(
    tx,
    entries,
    planned.flatMap((p) => [p.input.now, p.input.now]),
  );
  // Two entries per send, in order: the sender's, then the recipient's.
  return messages.map((message, i) => ({
    message,
    updates: [logged[2 * i], logged[2 * i + 1]] as LoggedUpdate[],
    duplicate: false,
  }));
}

/**
 * appendLogProgram for many users at once, in one statement (LOG): their seqs bumped and
 * the entries inserted (`nows`: each entry's time). The users are locked already (WRITE).
 */
async function appendLogSet(tx: Transaction<Database>, entries: Entry[], nows: number[]): Promise<LoggedUpdate[]> {
  const counts = new Map<string, number>();
  /** Each entry's place among its user's entries in this group, from 1. */
  const k = entries.map((e) => {
    const n = (counts.get(e.userId) ?? 0) + 1;
    counts.set(e.userId, n);
    return n;
  });
  const users = [...counts.keys()];
  const bumped = await rows<{ id: string; base: number | string; logged: number }>(tx, LOG, [
    users,
    users.map((u) => counts.get(u)),
    entries.map((e) => e.userId),
    k,
    entries.map((e) => e.update.kind),
    entries.map((e) => payloadOf(e.update)),
    nows,
  ]);
  if (bumped.length !== users.length || bumped[0]?.logged !== entries.length) {
    throw new Error('A user vanished under a grouped send');
  }
  const base = new Map(bumped.map((r) => [r.id, Number(r.base)]));
  return entries.map(({ userId, update }, i) => ({
    userId,
    seq: (base.get(userId) as number) + (k[i] as number),
    update,
  }));
}

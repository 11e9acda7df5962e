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
 * Both paths side by side, and the lock order: docs/message-path.md; the figures: docs/scaling.md.
 */

import { type ChatMessage, chatIdOf } from '@app/protocol';
import type pg from 'pg';
import { pgClientSocket } from '../../library-internals.ts';
import type { Batcher, BatchOutcome } from '../group-commit.ts';
import { NEEDS_ASYNC, runWithoutSteps } from '../program.ts';
import { applySend, type SummaryRow } from './apply-send.ts';
import { type Entry, type LoggedUpdate, toPublicUser } from './chat-rows.ts';
import { logPayloadOf } from './log-payload.ts';
import { CONTEXT, LOG, WRITE } from './send-batch-sql.ts';
import { planSend, type SendContextRow, type SendInput, type SendPlan, type SendResult } from './send-program.ts';

type Person = Omit<SendContextRow, 'stored_sender' | 'session_expires'>;

const key = (a: string, b: string) => `${a}\n${b}`;

/** What the group reads before it decides: both people of every send, their summaries, stored ids, sessions. */
interface Context {
  people: Map<string, Person>;
  summaries: Map<string, SummaryRow>;
  stored: Map<string, string>;
  sessions: Map<string, number>;
}

/** CONTEXT's parameters for a group. */
function contextParams(sends: SendInput[]): unknown[] {
  const ids = [...new Set(sends.flatMap((s) => [s.senderId, s.recipientId]))].sort();
  const pairs = new Map<string, [string, string]>();
  for (const s of sends) {
    const chatId = chatIdOf(s.senderId, s.recipientId);
    pairs.set(key(s.senderId, chatId), [s.senderId, chatId]);
    pairs.set(key(s.recipientId, chatId), [s.recipientId, chatId]);
  }
  return [
    ids,
    [...pairs.values()].map((p) => p[0]),
    [...pairs.values()].map((p) => p[1]),
    sends.map((s) => chatIdOf(s.senderId, s.recipientId)),
    sends.map((s) => s.msgId),
    [...new Set(sends.flatMap((s) => (s.session === null ? [] : [s.session])))],
  ];
}

interface ContextRow {
  people: Person[];
  summaries: SummaryRow[];
  stored: { chat_id: string; id: string; sender_id: string }[];
  sessions: { token_hash: string; expires_at: number }[];
}

function toContext(row: ContextRow | undefined): Context {
  if (!row) throw new Error('The context query returned nothing');
  return {
    people: new Map(row.people.map((p) => [p.id, p])),
    summaries: new Map(row.summaries.map((r) => [key(r.user_id, r.chat_id), r])),
    stored: new Map(row.stored.map((r) => [key(r.chat_id, r.id), r.sender_id])),
    sessions: new Map(row.sessions.map((r) => [r.token_hash, Number(r.expires_at)])),
  };
}

/** The rows SEND_CONTEXT and SUMMARIES would have read for this send, from the group's context. */
function contextRows(
  ctx: Context,
  s: SendInput,
  chatId: string,
): { people: SendContextRow[]; summaries: SummaryRow[] } {
  const people: SendContextRow[] = [];
  const summaries: SummaryRow[] = [];
  for (const id of [s.senderId, s.recipientId].sort()) {
    const p = ctx.people.get(id);
    if (!p || people.some((o) => o.id === id)) continue;
    people.push({
      ...p,
      stored_sender: ctx.stored.get(key(chatId, s.msgId)) ?? null,
      session_expires: s.session === null ? null : (ctx.sessions.get(s.session) ?? null),
    });
    const summary = ctx.summaries.get(key(id, chatId));
    if (summary) summaries.push(summary);
  }
  return { people, summaries };
}

/** A send the set-based path writes. */
interface Planned {
  index: number;
  input: SendInput;
  chatId: string;
  plan: SendPlan;
}

/** Each send's outcome so far, and the sends the set-based path writes. */
function plan(ctx: Context, sends: SendInput[]): { outcomes: BatchOutcome[]; planned: Planned[] } {
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
      const read = contextRows(ctx, input, chatId);
      const p = runWithoutSteps(planSend(input, read.people, read.summaries));
      const both = ctx.summaries.has(key(input.senderId, chatId)) && ctx.summaries.has(key(input.recipientId, chatId));
      if (p === NEEDS_ASYNC || !('sender' in p) || p.keyAfter !== p.known || p.back.state !== 'open' || !both) {
        alone.add(chatId);
        return;
      }
      planned.push({ index, input, chatId, plan: p });
    } catch (error) {
      outcomes[index] = { error };
    }
  });
  return { outcomes, planned };
}

/**
 * Statements queued in `run` leave in one write: the client is in pipeline mode (db.ts:
 * sendPool), so it sends each at once instead of after the one before has answered, and
 * the corked socket joins them. PostgreSQL then reads them together and answers them
 * together: one wake-up of its backend and of this process for the lot.
 */
function queued<T>(client: pg.PoolClient, run: () => T): T {
  const stream = pgClientSocket(client);
  stream.cork();
  try {
    return run();
  } finally {
    stream.uncork();
  }
}

/**
 * PostgreSQL's batcher for sends (see the file comment): each group on a pipelined
 * connection of its own (db.ts: sendPool), in one transaction of four statements sent in
 * two runs, BEGIN and CONTEXT, then WRITE, LOG and COMMIT: a group takes two round trips.
 * A statement that fails aborts the transaction, and the COMMIT behind it then rolls back;
 * the batcher throws and nothing was written.
 */
export function pgSendBatcher(pool: pg.Pool): Batcher<SendInput> {
  return async (sends) => {
    const client = await pool.connect();
    // A connection lost while checked out is an 'error' on the client (its queries fail too):
    // without a listener it would end the process.
    const lost = () => {};
    client.on('error', lost);
    let ok = false;
    let broken: Error | undefined;
    try {
      const [, read] = await queued(client, () =>
        Promise.all([
          client.query('begin'),
          client.query<ContextRow>({ name: 'send-context', text: CONTEXT, values: contextParams(sends) }),
        ]),
      );
      const ctx = toContext(read.rows[0]);
      const { outcomes, planned } = plan(ctx, sends);
      if (planned.length === 0) {
        await client.query('commit');
        ok = true;
        return outcomes;
      }
      const group = writes(ctx, planned);
      const [, log, commit] = await queued(client, () =>
        Promise.all([
          client.query({ name: 'send-write', text: WRITE, values: group.write }),
          client.query<{ id: string; base: number | string }>({ name: 'send-log', text: LOG, values: group.log }),
          client.query('commit'),
        ]),
      );
      if (commit.command !== 'COMMIT') throw new Error(`grouped send: ${commit.command} instead of COMMIT`);
      ok = true;
      const results = group.results(new Map(log.rows.map((r) => [r.id, Number(r.base)])));
      planned.forEach((p, i) => {
        outcomes[p.index] = { value: results[i] };
      });
      return outcomes;
    } finally {
      if (!ok)
        await client.query('rollback').catch((err: unknown) => {
          // Still in a transaction, or gone: not handed to the next group.
          broken = err instanceof Error ? err : new Error(String(err));
        });
      client.off('error', lost);
      client.release(broken);
    }
  };
}

/**
 * What a group writes, worked out from its context: each send's effects (applySend, on
 * the summaries as the sends before it in the group left them), WRITE's and LOG's
 * parameters, and each send's result once LOG has answered every user's seq before the group.
 */
function writes(ctx: Context, planned: Planned[]) {
  /** Summaries as the group leaves them so far. */
  const summaries = new Map<string, SummaryRow>();
  const current = (userId: string, chatId: string): SummaryRow => {
    const k = key(userId, chatId);
    return summaries.get(k) ?? (ctx.summaries.get(k) as SummaryRow);
  };
  const messages: ChatMessage[] = [];
  const entries: Entry[] = [];
  const nows: number[] = [];
  for (const { input, chatId, plan: p } of planned) {
    const effects = applySend(
      {
        sender: current(input.senderId, chatId),
        recipient: current(input.recipientId, chatId),
        senderProfile: toPublicUser(p.sender),
        recipientProfile: toPublicUser(p.recipient),
      },
      {
        chatId,
        msgId: input.msgId,
        senderId: input.senderId,
        recipientId: input.recipientId,
        body: { text: input.sealed.ct, sealed: true },
        now: input.now,
      },
    );
    summaries.set(key(input.senderId, chatId), effects.sender);
    summaries.set(key(input.recipientId, chatId), effects.recipient);
    messages.push(effects.message);
    entries.push(...effects.entries);
    nows.push(input.now, input.now);
  }
  const changed = [...summaries.values()];
  const counts = new Map<string, number>();
  /** Each entry's place among its user's entries in this group, from 1. */
  const k = entries.map((e) => {
    const n = (counts.get(e.userId) ?? 0) + 1;
    counts.set(e.userId, n);
    return n;
  });
  const users = [...counts.keys()].sort();
  return {
    write: [
      changed.map((s) => s.user_id),
      changed.map((s) => s.chat_id),
      changed.map((s) => s.last_id),
      changed.map((s) => s.last_sender),
      changed.map((s) => s.timestamp),
      changed.map((s) => s.unread_count),
      messages.map((m) => m.chatId),
      messages.map((m) => m.id),
      messages.map((m) => m.senderId),
      messages.map((m) => m.recipientId),
      messages.map((m) => m.ct),
      messages.map((m) => m.timestamp),
      users,
      changed.length,
    ],
    log: [
      users,
      users.map((u) => counts.get(u)),
      entries.map((e) => e.userId),
      k,
      entries.map((e) => e.update.kind),
      entries.map((e) => logPayloadOf(e.update)),
      nows,
    ],
    /** Each send's result, given every user's seq before the group. */
    results(base: Map<string, number>): SendResult[] {
      if (base.size !== users.length) throw new Error('grouped send: a user is gone');
      const logged: LoggedUpdate[] = entries.map(({ userId, update }, i) => ({
        userId,
        seq: (base.get(userId) as number) + (k[i] as number),
        update,
      }));
      // Two entries per send, in order: the sender's, then the recipient's.
      return messages.map((message, i) => ({
        message,
        updates: [logged[2 * i], logged[2 * i + 1]] as LoggedUpdate[],
        duplicate: false,
      }));
    },
  };
}

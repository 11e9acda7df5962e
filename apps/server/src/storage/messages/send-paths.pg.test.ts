/**
 * One send, one set of rules (apply-send.ts): the same random sequences of sends run
 * through the single path on SQLite, the single path on PostgreSQL and PostgreSQL's
 * grouped path (send-batch.ts, sends of a group arriving together) end in the same rows
 * and the same answers. The sequences mix chats' first messages (with their key), retried
 * and reused ids, a clock that stalls, a blocked recipient and a user who takes messages
 * from contacts only (a request, then "pending").
 */
import { chatIdOf } from '@app/protocol';
import { sampleChatKey, sampleCiphertext } from '@app/protocol/test/samples';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropPgSchema } from '../../test/harness.ts';
import { giveKeys } from '../../test/store-keys.ts';
import { AccountStore } from '../accounts/account-store.ts';
import { type Db, migrate, openDb } from '../db.ts';
import { ChatStore, chatWrites } from './chat-store.ts';

const url = process.env.TEST_DATABASE_URL;

/** Five people: u3 takes messages from contacts only, u4 is blocked. */
const PEOPLE = 5;

interface Send {
  from: number;
  to: number;
  /** The message id, from a small pool per chat: a reuse is a retry (same sender) or a conflict. */
  id: number;
  /** Milliseconds after the previous send's clock: 0 is a clock that has not moved on. */
  after: number;
}

/** Mostly the three ordinary people, so that a group often holds several sends of one chat. */
const personArb = (max: number) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 0, max: 2 }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max }) },
  );
const sendArb: fc.Arbitrary<Send> = fc
  .record({
    from: personArb(PEOPLE - 1),
    to: personArb(PEOPLE - 2),
    id: fc.integer({ min: 0, max: 5 }),
    after: fc.constantFrom(0, 0, 1, 3),
  })
  .map((s) => ({ ...s, to: s.to >= s.from ? s.to + 1 : s.to }));
/** Sends, cut into groups that arrive together (at most 8). */
const runArb = fc.array(fc.array(sendArb, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 6 });

interface Path {
  name: string;
  db: Db;
  accounts: AccountStore;
  chat: ChatStore;
}

describe.skipIf(!url)('a send writes the same rows on every path', () => {
  const schemas = [1, 2].map((i) => `t_paths${i}_${process.pid}_${Date.now().toString(36)}`);
  const paths: Path[] = [];
  let run = 0;
  /** The size of each commit's group of sends (the grouped path writes several at once). */
  const sizes: number[] = [];

  beforeAll(async () => {
    const open = async (name: string, db: Db, grouped: boolean): Promise<Path> => {
      await migrate(db);
      // The single path on PostgreSQL: a group commit without the batcher (each send's statements, in savepoints of a shared transaction).
      const chat = new ChatStore(db.kysely, grouped ? chatWrites(db, (jobs) => sizes.push(jobs)) : {});
      return { name, db, accounts: new AccountStore(db), chat };
    };
    paths.push(await open('single, SQLite', await openDb({ sqliteFile: ':memory:' }), true));
    const [single, grouped] = schemas as [string, string];
    paths.push(await open('single, PostgreSQL', await openDb({ databaseUrl: url as string, pgSchema: single }), false));
    paths.push(
      await open('grouped, PostgreSQL', await openDb({ databaseUrl: url as string, pgSchema: grouped }), true),
    );
  });
  afterAll(async () => {
    for (const p of paths) await p.db.close();
    for (const s of schemas) if (url) await dropPgSchema(url, s);
  });

  /** This run's people on a path, with keys; u3 takes requests, u4 is blocked. */
  async function people(p: Path): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < PEOPLE; i += 1) {
      const name = `r${run}u${i}`;
      const u = await p.accounts.createUser({
        username: name,
        email: `${name}@example.com`,
        name,
        phone: '5551234567',
        age: 30,
        passwordHash: 'h',
        now: 1,
      });
      await giveKeys(p.db.kysely, u.id);
      ids.push(u.id);
    }
    await p.db.kysely
      .updateTable('user_settings')
      .set({ require_request: 1 })
      .where('user_id', '=', ids[3] as string)
      .execute();
    await p.db.kysely
      .updateTable('users')
      .set({ blocked: 1 })
      .where('id', '=', ids[4] as string)
      .execute();
    return ids;
  }

  /** Runs the groups on a path; each group's sends arrive in one turn of the event loop. */
  async function play(p: Path, ids: string[], groups: Send[][]): Promise<unknown[]> {
    const opened = new Set<string>();
    const answers: unknown[] = [];
    let now = 1_000_000;
    for (const group of groups) {
      const pending = group.map((s, i) => {
        now += s.after;
        const [from, to] = [ids[s.from] as string, ids[s.to] as string];
        const chatId = chatIdOf(from, to);
        // A chat's first message in the sequence brings its key (as the first sender's client would).
        const first = !opened.has(chatId);
        opened.add(chatId);
        const ct = sampleCiphertext(1, 0, 67, (s.id * 31 + i) % 256);
        const sealed = first ? { ct, chatKey: sampleChatKey(chatId, 1, from) } : { ct };
        return p.chat.send(from, to, `m${s.id}x${s.from + s.to}`, sealed, now);
      });
      for (const r of await Promise.allSettled(pending)) {
        if (r.status === 'rejected') answers.push((r.reason as { code?: string }).code ?? String(r.reason));
        else if ('request' in r.value) answers.push(`request ${r.value.request.state}`);
        else answers.push([r.value.message.id, r.value.message.timestamp, r.value.duplicate]);
      }
    }
    return answers;
  }

  /**
   * A path's rows for this run, with its random user ids replaced by their names. A user's
   * log is compared chat by chat: how sends of different chats in one group interleave in
   * it is the commit order, which the paths may choose differently.
   */
  async function rows(p: Path, ids: string[]) {
    const db = p.db.kysely;
    const name = (text: string) => {
      let out = text;
      ids.forEach((id, i) => {
        out = out.split(id).join(`u${i}`);
      });
      return out.replace(/u(\d)_u(\d)/g, (_, a, b) => (a < b ? `u${a}_u${b}` : `u${b}_u${a}`));
    };
    const messages = await db.selectFrom('messages').selectAll().where('sender_id', 'in', ids).execute();
    const summaries = await db.selectFrom('user_chats').selectAll().where('user_id', 'in', ids).execute();
    // The envelope's seals are in user id order (random here): compared without it.
    const keys = await db
      .selectFrom('chat_keys')
      .select(['chat_id', 'epoch', 'creator_id', 'uk_epochs', 'created_at'])
      .execute();
    const users = await db.selectFrom('users').select(['id', 'update_seq']).where('id', 'in', ids).execute();
    const notes = await db
      .selectFrom('user_notifications')
      .select(['user_id', 'type', 'from_id', 'message', 'sealed', 'timestamp', 'msg_id'])
      .where('user_id', 'in', ids)
      .execute();
    const log = await db
      .selectFrom('user_updates')
      .select(['user_id', 'seq', 'kind', 'payload', 'created_at'])
      .where('user_id', 'in', ids)
      .orderBy('seq')
      .execute();
    const byChat = new Map<string, unknown[]>();
    for (const e of log) {
      const update = JSON.parse(e.payload) as {
        message?: { chatId: string };
        peerId?: string;
        notification?: { fromId: string };
      };
      // A request's notification belongs with the chat it asks to open.
      const peer = update.peerId ?? update.notification?.fromId;
      const chat = update.message?.chatId ?? (peer ? chatIdOf(e.user_id, peer) : e.kind);
      if (update.notification) update.notification = { ...update.notification, id: 'n' } as typeof update.notification;
      const k = `${e.user_id} ${chat}`;
      byChat.set(k, [...(byChat.get(k) ?? []), [e.kind, update, e.created_at]]);
    }
    const sorted = (list: unknown[]) => list.map((r) => name(JSON.stringify(r))).sort();
    return {
      messages: sorted(messages),
      summaries: sorted(summaries),
      keys: sorted(keys.filter((k) => ids.some((id) => k.chat_id.includes(id)))),
      seqs: sorted(users.map((u) => [u.id, Number(u.update_seq), log.filter((e) => e.user_id === u.id).length])),
      notifications: sorted(notes),
      log: sorted([...byChat.entries()]),
    };
  }

  it('single on SQLite, single on PostgreSQL and grouped on PostgreSQL agree', async () => {
    await fc.assert(
      fc.asyncProperty(runArb, async (groups) => {
        run += 1;
        const outcomes = [];
        for (const p of paths) {
          const ids = await people(p);
          const answers = await play(p, ids, groups);
          outcomes.push({
            name: p.name,
            answers: answers.map((a) => JSON.parse(JSON.stringify(a))),
            rows: await rows(p, ids),
          });
        }
        const [sqlite, single, grouped] = outcomes as [
          (typeof outcomes)[0],
          (typeof outcomes)[0],
          (typeof outcomes)[0],
        ];
        expect({ ...single, name: '' }).toEqual({ ...sqlite, name: '' });
        expect({ ...grouped, name: '' }).toEqual({ ...sqlite, name: '' });
      }),
      { numRuns: 20 },
    );
    // The runs did group sends: some commits wrote several (the set-based path), not only one each.
    expect(Math.max(...sizes)).toBeGreaterThan(2);
  }, 240_000);
});

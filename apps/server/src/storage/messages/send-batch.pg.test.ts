/**
 * PostgreSQL's grouped sends (send-batch.ts): sends that arrive together are written in
 * one transaction, set-based; each is refused alone, and what the set-based path leaves
 * to single sends (a repeated id, a chat's first message with its key, the messages after
 * it) keeps its answers and its order.
 */
import { chatIdOf, summaryAfter } from '@app/protocol';
import { sampleCiphertext } from '@app/protocol/test/samples';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropPgSchema } from '../../test/harness.ts';
import { giveKeys, sampleSealed, sampleText } from '../../test/store-keys.ts';
import { AccountStore } from '../accounts/account-store.ts';
import { type Db, migrate, openDb } from '../db.ts';
import { ChatStore, chatWrites } from './chat-store.ts';
import { LOG, WRITE } from './send-batch-sql.ts';

const url = process.env.TEST_DATABASE_URL;

describe.skipIf(!url)('grouped sends on PostgreSQL', () => {
  const schema = `t_batch_${process.pid}_${Date.now().toString(36)}`;
  let db: Db;
  let store: AccountStore;
  let chat: ChatStore;
  let n = 0;
  const user = async () => {
    n += 1;
    const u = await store.createUser({
      username: `gb_${n}`,
      email: `gb_${n}@example.com`,
      name: `Grouped ${n}`,
      phone: '5551234567',
      age: 30,
      passwordHash: 'h',
      now: 1,
    });
    await giveKeys(db.kysely, u.id);
    return u.id;
  };
  /** A message that brings the chat's first key, sent alone. */
  const open = async (from: string, to: string) => {
    await chat.send(from, to, `open-${from}-${to}`, await sampleSealed(db.kysely, from, to, 0), 100);
  };

  beforeAll(async () => {
    db = await openDb({ databaseUrl: url as string, pgSchema: schema });
    await migrate(db);
    store = new AccountStore(db);
    chat = new ChatStore(db.kysely, chatWrites(db));
  });
  afterAll(async () => {
    await db?.close();
    if (url) await dropPgSchema(url, schema);
  });

  it('writes a group in one transaction; a refused send fails alone, single-path sends keep their order', async () => {
    const [a, b, c, d, x, e] = [await user(), await user(), await user(), await user(), await user(), await user()];
    await open(a, b);
    await open(c, d);
    await open(a, x);
    await db.kysely.updateTable('users').set({ blocked: 1 }).where('id', '=', x).execute();
    const before = { ...chat.writes.stats };
    const ok = (fill: number) => ({ ct: sampleText(fill) });
    // All in one turn of the event loop: one group.
    const sends = [
      chat.send(a, b, 'g-01', ok(1), 1000),
      chat.send(c, d, 'g-02', ok(2), 1000),
      chat.send(a, x, 'g-03', ok(3), 1000),
      chat.send(a, b, 'g-04', { ct: sampleCiphertext(2, 0, 67, 4) }, 1000),
      chat.send(b, a, 'g-05', ok(5), 1000),
      chat.send(c, d, 'g-06', ok(6), 1000, 'no-such-session'),
      chat.send(a, b, 'g-01', ok(1), 1000),
      chat.send(a, e, 'g-08', await sampleSealed(db.kysely, a, e, 8), 1000),
      chat.send(a, e, 'g-09', ok(9), 1000),
    ];
    const results = await Promise.allSettled(sends);
    const outcome = results.map((r) =>
      r.status === 'rejected'
        ? (r.reason as { code: string }).code
        : 'message' in r.value
          ? `${r.value.message.id}${r.value.duplicate ? ' again' : ''}`
          : 'request',
    );
    expect(outcome).toEqual([
      'g-01',
      'g-02',
      'recipient_unavailable',
      'rekey_required',
      'g-05',
      'forbidden',
      'g-01 again',
      'g-08',
      'g-09',
    ]);
    // One commit for the three grouped sends; the repeat and the new chat's two ran alone.
    expect({ commits: chat.writes.stats.commits - before.commits, jobs: chat.writes.stats.jobs - before.jobs }).toEqual(
      { commits: 4, jobs: 6 },
    );
    const history = async (p: string, q: string) =>
      (await chat.history(chatIdOf(p, q), 50)).messages.map((m) => [m.id, m.timestamp]);
    expect(await history(a, b)).toEqual([
      [`open-${a}-${b}`, 100],
      ['g-01', 1000],
      ['g-05', 1001],
    ]);
    expect(await history(a, e)).toEqual([
      ['g-08', 1000],
      ['g-09', 1001],
    ]);
    expect((await history(a, x)).map(([id]) => id)).toEqual([`open-${a}-${x}`]);
    expect((await history(c, d)).map(([id]) => id)).toEqual([`open-${c}-${d}`, 'g-02']);
  });

  it('each log entry carries the summary its message made; seqs run on without a gap', async () => {
    const [a, b, c] = [await user(), await user(), await user()];
    await open(a, b);
    await open(c, a);
    // Both ways in one chat, and a second chat of a's, all in one group.
    const plan: [string, string][] = [
      [a, b],
      [b, a],
      [a, b],
      [c, a],
      [a, b],
      [a, c],
      [b, a],
    ];
    const results = await Promise.all(
      plan.map(([from, to], i) => chat.send(from, to, `s-${i}`, { ct: sampleText(i) }, 2000)),
    );
    const entries = results.flatMap((r) => r.updates);
    for (const person of [a, b, c]) {
      const log = await chat.updatesSince(person, 0);
      expect(log?.map((u) => u.seq)).toEqual(Array.from({ length: log?.length ?? 0 }, (_, i) => i + 1));
      // The last entry of each chat rebuilds the stored summary (summaryAfter, as clients do).
      for (const stored of await chat.chats(person)) {
        const last = entries
          .filter(
            (u) => u.userId === person && u.update.kind === 'message' && u.update.message.chatId === stored.chatId,
          )
          .at(-1);
        if (last?.update.kind !== 'message' || !last.update.chat) throw new Error('each send logs a summary');
        expect(summaryAfter(last.update.chat, last.update.message)).toEqual(stored);
      }
    }
    // Writing clears one's own unread count; each message received adds one.
    expect((await chat.chats(b)).find((s) => s.peerId === a)?.unreadCount).toBe(0);
    expect((await chat.chats(c)).find((s) => s.peerId === a)?.unreadCount).toBe(1);
    const aChats = await chat.chats(a);
    expect(aChats.find((s) => s.peerId === b)?.unreadCount).toBe(1);
    expect(aChats.find((s) => s.peerId === c)?.unreadCount).toBe(0);
  });

  it('the guards abort the transaction when a row the group counted on is gone', async () => {
    const client = await (db.pool as NonNullable<Db['pool']>).connect();
    const attempt = async (sql: string, params: unknown[]) => {
      await client.query('begin');
      try {
        await client.query(sql, params);
        return 'ran';
      } catch (e) {
        return (e as Error).message;
      } finally {
        await client.query('rollback');
      }
    };
    try {
      const none = Array.from({ length: 12 }, () => []);
      // One summary to change, none there.
      expect(await attempt(WRITE, [...none, [], 1])).toMatch(/grouped send: a summary or a user is gone \(0\)/);
      // A user to lock who does not exist.
      expect(await attempt(WRITE, [...none, ['nobody'], 0])).toMatch(/grouped send: a summary or a user is gone/);
      // A log entry for a user who does not exist.
      expect(await attempt(LOG, [[], [], ['nobody'], [1], ['message'], ['{}'], [1]])).toMatch(
        /grouped send: a user is gone \(0\)/,
      );
      // Nothing to do: no guard fires.
      expect(await attempt(WRITE, [...none, [], 0])).toBe('ran');
      expect(await attempt(LOG, [[], [], [], [], [], [], []])).toBe('ran');
    } finally {
      client.release();
    }
  });
});

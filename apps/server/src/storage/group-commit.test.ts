/** Group commit: concurrent writes share a transaction; a failing one is undone alone. */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, migrate, openDb } from './db.ts';
import { GroupCommit } from './group-commit.ts';
import { call, type Program, query, stmt } from './program.ts';

describe('GroupCommit', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openDb({ sqliteFile: ':memory:' });
    await migrate(db);
  });
  afterAll(async () => {
    await db.close();
  });

  it('runs writes that arrive together in one transaction, each in its own savepoint', async () => {
    const gc = new GroupCommit(db.kysely);
    const write = (key: string, fail = false) =>
      gc.run(async (tx) => {
        await tx.insertInto('settings').values({ key, value: 'v' }).execute();
        if (fail) throw new Error(`no ${key}`);
        return key;
      });
    const results = await Promise.allSettled([write('a'), write('b', true), write('c'), write('d')]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      'a',
      'no b',
      'c',
      'd',
    ]);
    expect(gc.stats).toEqual({ commits: 1, jobs: 3 });
    const keys = (await db.kysely.selectFrom('settings').select('key').execute()).map((r) => r.key).sort();
    expect(keys).toEqual(['a', 'c', 'd']);
  });

  it('a write alone is its own transaction; one that fails leaves nothing', async () => {
    const gc = new GroupCommit(db.kysely);
    await expect(
      gc.run(async (tx) => {
        await tx.insertInto('settings').values({ key: 'lonely', value: 'v' }).execute();
        throw new Error('undone');
      }),
    ).rejects.toThrow('undone');
    expect(await db.kysely.selectFrom('settings').selectAll().where('key', '=', 'lonely').execute()).toEqual([]);
    expect(await gc.run(async () => 42)).toBe(42);
  });

  const INSERT = stmt('insert into settings (key, value) values (?, ?)');
  const COUNT = stmt('select count(*) as n from settings where key like ?');
  const keysLike = async (prefix: string) =>
    (await db.kysely.selectFrom('settings').select('key').where('key', 'like', `${prefix}%`).execute())
      .map((r) => r.key)
      .sort();

  it('runs programs synchronously on SQLite, many in one commit, a failing one undone alone', async () => {
    const gc = new GroupCommit(db.kysely, { sqlite: db.sqlite });
    function* write(key: string, fail = false): Program<number> {
      yield* query(INSERT, [key, 'v']);
      if (fail) throw new Error(`no ${key}`);
      const [row] = yield* query<{ n: number }>(COUNT, ['p-%']);
      return Number(row?.n);
    }
    const results = await Promise.allSettled([
      gc.program(() => write('p-a')),
      gc.program(() => write('p-b', true)),
      gc.program(() => write('p-c')),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      1,
      'no p-b',
      2,
    ]);
    expect(gc.stats).toEqual({ commits: 1, jobs: 2 });
    expect(await keysLike('p-')).toEqual(['p-a', 'p-c']);
  });

  it('a program that reaches an async step is undone and run again on its own', async () => {
    const gc = new GroupCommit(db.kysely, { sqlite: db.sqlite });
    let attempts = 0;
    function* write(key: string): Program<string> {
      attempts += 1;
      yield* query(INSERT, [key, 'v']);
      const n = yield* call(async (tx) => (await tx.selectFrom('settings').selectAll().execute()).length);
      return `${key}:${n > 0}`;
    }
    function* plain(): Program<string> {
      yield* query(INSERT, ['q-plain', 'v']);
      return 'plain';
    }
    const out = await Promise.all([gc.program(() => write('q-async')), gc.program(plain)]);
    expect(out).toEqual(['q-async:true', 'plain']);
    // Tried synchronously (undone at the call), then once more asynchronously: stored once.
    expect(attempts).toBe(2);
    expect(await keysLike('q-')).toEqual(['q-async', 'q-plain']);
  });

  it('waits for a transaction already holding the connection', async () => {
    const gc = new GroupCommit(db.kysely, { sqlite: db.sqlite });
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    const other = db.kysely.transaction().execute(async (tx) => {
      await tx.insertInto('settings').values({ key: 'r-tx', value: 'v' }).execute();
      await held;
    });
    function* write(): Program<number> {
      const [row] = yield* query<{ n: number }>(COUNT, ['r-%']);
      yield* query(INSERT, ['r-program', 'v']);
      return Number(row?.n);
    }
    const p = gc.program(write);
    await new Promise((r) => setTimeout(r, 20));
    release();
    await other;
    // The program ran after the other transaction committed, and saw its row.
    expect(await p).toBe(1);
    expect(await keysLike('r-')).toEqual(['r-program', 'r-tx']);
  });

  it('a batcher runs jobs set-based; a chain in flight holds its later jobs back, in order', async () => {
    type Input = { chain: string; n: number };
    /** What each batch held, and the chains in flight at any moment. */
    const batches: string[][] = [];
    const inFlight = new Set<string>();
    let overlap = false;
    const batcher = async (inputs: Input[]) => {
      batches.push(inputs.map((i) => `${i.chain}${i.n}`));
      const chains = new Set(inputs.map((i) => i.chain));
      for (const c of chains) {
        if (inFlight.has(c)) overlap = true;
        inFlight.add(c);
      }
      await new Promise((r) => setTimeout(r, 20));
      for (const c of chains) inFlight.delete(c);
      return inputs.map((i) => (i.n === 99 ? { error: new Error('refused') } : { value: `${i.chain}${i.n}` }));
    };
    const gc = new GroupCommit<Input>(db.kysely, { batcher, chainOf: (i) => i.chain, concurrency: 2 });
    const job = (chain: string, n: number) =>
      gc.program(
        function* () {
          // Never run: the batcher answers every job.
          yield* query(COUNT, ['%']);
          return 'ran alone';
        },
        { chain, n },
      );
    const first = [job('a', 1), job('b', 1)];
    await new Promise((r) => setTimeout(r, 5));
    // While a1 and b1 are in flight: a2, b2 and c1 arrive; only c1 may start at once.
    const second = [job('a', 2), job('c', 1), job('b', 2), job('c', 99)];
    const results = await Promise.allSettled([...first, ...second]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      'a1',
      'b1',
      'a2',
      'c1',
      'b2',
      'refused',
    ]);
    expect(overlap).toBe(false);
    expect(batches).toEqual([
      ['a1', 'b1'],
      ['c1', 'c99'],
      ['a2', 'b2'],
    ]);
  });

  it('a job alone with a batch input goes through the batcher too (its statements, not the program)', async () => {
    const batches: number[] = [];
    const gc = new GroupCommit<number>(db.kysely, {
      batcher: async (inputs) => {
        batches.push(inputs.length);
        return inputs.map((n) => ({ value: n * 2 }));
      },
      chainOf: String,
    });
    const lone = gc.program(function* () {
      yield* query(COUNT, ['%']);
      return -1;
    }, 21);
    expect(await lone).toBe(42);
    expect(batches).toEqual([1]);
  });

  it('on SQLite, a chain whose job must run asynchronously takes its later jobs with it, in order', async () => {
    type Input = { chain: string };
    const gc = new GroupCommit<Input>(db.kysely, { sqlite: db.sqlite, chainOf: (i) => i.chain });
    function* write(key: string, async = false): Program<string> {
      if (async) yield* call(async () => null);
      yield* query(INSERT, [key, 'v']);
      return key;
    }
    const out = await Promise.all([
      gc.program(() => write('s-x1', true), { chain: 'x' }),
      gc.program(() => write('s-x2'), { chain: 'x' }),
      gc.program(() => write('s-y1'), { chain: 'y' }),
    ]);
    expect(out).toEqual(['s-x1', 's-x2', 's-y1']);
    // y ran in the synchronous transaction; x2 waited for x1 on the asynchronous path.
    const order = await db.kysely
      .selectFrom('settings')
      .select('key')
      .where('key', 'like', 's-%')
      .orderBy(sql`rowid`)
      .execute();
    expect(order.map((r) => r.key)).toEqual(['s-y1', 's-x1', 's-x2']);
  });
});

/** Group commit: concurrent writes share a transaction; a failing one is undone alone. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, migrate, openDb } from './db.ts';
import { GroupCommit } from './group-commit.ts';

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
});

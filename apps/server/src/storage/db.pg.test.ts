/**
 * Several processes opening one new PostgreSQL schema at once (what `npm run cluster` does
 * at start): none may fail. `CREATE SCHEMA IF NOT EXISTS` alone does not guarantee it: two
 * of them at once can both find the name free and the loser fails with a unique violation
 * on pg_namespace (seen as "cluster exited (1)" in the scale-out browser tests).
 * And a pool whose idle connections PostgreSQL drops goes on.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, openDb } from './db.ts';

const url = process.env.TEST_DATABASE_URL;

describe.skipIf(!url)('openDb on PostgreSQL', () => {
  const schemas: string[] = [];
  afterAll(async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    for (const s of schemas) await c.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
    await c.end();
  });

  it('opens and migrates one new schema from several connections at once', async () => {
    for (let round = 0; round < 5; round++) {
      const schema = `t_open_${process.pid}_${Date.now().toString(36)}_${round}`;
      schemas.push(schema);
      const dbs = await Promise.all(
        Array.from({ length: 6 }, async () => {
          const db = await openDb({ databaseUrl: url, pgSchema: schema });
          await migrate(db);
          return db;
        }),
      );
      const tables = await dbs[0]?.kysely.introspection.getTables();
      expect(tables?.some((t) => t.name === 'users' && t.schema === schema)).toBe(true);
      await Promise.all(dbs.map((db) => db.close()));
    }
  });

  it('outlives PostgreSQL dropping its idle connections, and connects anew', async () => {
    const schema = `t_drop_${process.pid}_${Date.now().toString(36)}`;
    schemas.push(schema);
    const db = await openDb({ databaseUrl: url, pgSchema: schema });
    await migrate(db);
    const pools = [db.pool, db.sendPool] as pg.Pool[];
    // One idle connection in each pool, and the backend behind it.
    const pids: number[] = [];
    for (const p of pools) {
      const c = await p.connect();
      pids.push((await c.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid as number);
      c.release();
    }
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    // Those backends end (as in a restart of PostgreSQL).
    await admin.query('select pg_terminate_backend(pid) from unnest($1::int[]) as pid', [pids]);
    await admin.end();
    await new Promise((r) => setTimeout(r, 200));
    // Still here, and both pools answer.
    for (const p of pools) expect((await p.query('select 1 as one')).rows[0]).toEqual({ one: 1 });
    await db.close();
  });
});

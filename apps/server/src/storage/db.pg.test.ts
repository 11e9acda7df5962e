/**
 * Several processes opening one new PostgreSQL schema at once (what `npm run cluster` does
 * at start): none may fail. `CREATE SCHEMA IF NOT EXISTS` alone does not guarantee it: two
 * of them at once can both find the name free and the loser fails with a unique violation
 * on pg_namespace (seen as "cluster exited (1)" in the scale-out browser tests).
 * A pool whose idle connections PostgreSQL drops goes on. And a server starts (migrates)
 * while other schemas of its database come and go (tenants, tests): Kysely's own
 * introspection, which the Migrator runs, fails then (see pg-introspector.ts).
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

  it('migrates and introspects its own schema while other schemas are made and dropped', async () => {
    const tag = `${process.pid}_${Date.now().toString(36)}`;
    const churners = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })];
    await Promise.all(churners.map((c) => c.connect()));
    let stop = false;
    let churned = 0;
    // Each its own statement (its own commit): schemas that exist for a moment, with a table.
    const churning = churners.map(async (c, k) => {
      for (let i = 0; !stop; i++) {
        const other = `t_churn_${tag}_${k}_${i}`;
        await c.query(`CREATE SCHEMA ${other}`);
        await c.query(`CREATE TABLE ${other}.t (a int)`);
        await c.query(`DROP SCHEMA ${other} CASCADE`);
        churned += 1;
      }
    });
    try {
      for (let round = 0; round < 4; round++) {
        const schema = `t_mig_${tag}_${round}`;
        schemas.push(schema);
        const db = await openDb({ databaseUrl: url, pgSchema: schema });
        try {
          await migrate(db);
          for (let i = 0; i < 10; i++) {
            const tables = await db.kysely.introspection.getTables({ withInternalKyselyTables: true });
            // Its own tables only, whole.
            expect(new Set(tables.map((t) => t.schema))).toEqual(new Set([schema]));
            expect(tables.map((t) => t.name)).toContain('kysely_migration');
            const users = tables.find((t) => t.name === 'users');
            expect(users?.columns.find((c) => c.name === 'id')).toMatchObject({ isNullable: false });
          }
        } finally {
          await db.close();
        }
      }
    } finally {
      stop = true;
      await Promise.all(churning);
      await Promise.all(churners.map((c) => c.end()));
    }
    expect(churned).toBeGreaterThan(0);
  });
});

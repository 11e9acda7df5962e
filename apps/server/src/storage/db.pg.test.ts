/**
 * Several processes opening one new PostgreSQL schema at once (what `npm run cluster` does
 * at start): none may fail. `CREATE SCHEMA IF NOT EXISTS` alone does not guarantee it: two
 * of them at once can both find the name free and the loser fails with a unique violation
 * on pg_namespace (seen as "cluster exited (1)" in the scale-out browser tests).
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
});

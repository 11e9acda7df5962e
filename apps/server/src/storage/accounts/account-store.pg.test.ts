import pg from 'pg';
import { afterAll, describe, it } from 'vitest';
import { chatStoreContract } from '../../test/chat-store.contract.ts';
import { storeContract } from '../../test/store.contract.ts';
import { openDb } from '../db.ts';

const url = process.env.TEST_DATABASE_URL;

if (url) {
  // One throw-away schema per run, so runs never see each other's rows.
  const schema = `t_${process.pid}_${Date.now().toString(36)}`;
  storeContract('PostgreSQL', () => openDb({ databaseUrl: url, pgSchema: schema }));
  chatStoreContract('PostgreSQL', () => openDb({ databaseUrl: url, pgSchema: `${schema}_chat` }));
  afterAll(async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await c.query(`DROP SCHEMA IF EXISTS ${schema}_chat CASCADE`);
    await c.end();
  });
} else {
  describe('AccountStore and ChatStore contracts on PostgreSQL', () => {
    it.skip('skipped: set TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test to run it', () => {});
  });
}

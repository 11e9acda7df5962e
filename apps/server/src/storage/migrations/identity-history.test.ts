/**
 * Migration 008 on a deployment upgraded from before end-to-end encryption: it records
 * when the newest message in the clear was sent (chats mark where encryption began), and
 * nothing on a deployment that never had one. SQLite, and PostgreSQL when TEST_DATABASE_URL is set.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Migrator } from 'kysely/migration';
import { describe, expect, it } from 'vitest';
import { dropPgSchema, ENGINES } from '../../test/harness.ts';
import { NEW, seedLegacy } from '../../test/legacy-plaintext.ts';
import { type Db, migrate, openDb } from '../db.ts';
import { migrations } from './index.ts';

async function withDbAt007<T>(url: string, run: (db: Db) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), 'parley-m008-'));
  const schema = `m008_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const db = await openDb(
    url ? { databaseUrl: url, dataDir: dir, pgSchema: schema } : { databaseUrl: null, dataDir: dir },
  );
  try {
    const migrator = new Migrator({
      db: db.kysely,
      provider: { getMigrations: async () => migrations },
      ...(db.schema ? { migrationTableSchema: db.schema } : {}),
    });
    const { error } = await migrator.migrateTo('007-e2ee-messages');
    if (error) throw error;
    return await run(db);
  } finally {
    await db.close();
    if (url) await dropPgSchema(url, schema);
    rmSync(dir, { recursive: true, force: true });
  }
}

const since = (db: Db) =>
  db.kysely.selectFrom('settings').select('value').where('key', '=', 'e2ee_since').executeTakeFirst();

describe.each(ENGINES)('migration 008 on $name', ({ url }) => {
  it('records the time of the newest message sent in the clear', async () => {
    await withDbAt007(url, async (db) => {
      await seedLegacy(db);
      expect(await migrate(db)).toContain('008-identity-history');
      expect(await since(db)).toEqual({ value: String(NEW) });
    });
  });

  it('records nothing on a deployment that never had a message in the clear', async () => {
    await withDbAt007(url, async (db) => {
      await migrate(db);
      expect(await since(db)).toBeUndefined();
    });
  });
});

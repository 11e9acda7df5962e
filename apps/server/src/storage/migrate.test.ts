/**
 * Upgrades: migrations run once and in order, and code refuses a database a newer release has
 * migrated (it would not know its tables), saying what to do, without touching it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrate, openDb, pendingMigrations, unknownMigrations } from './db.ts';
import { migrations } from './migrations/index.ts';

describe('migrations', () => {
  it('run once; a database migrated by a newer release is refused, untouched', async () => {
    const db = await openDb({ dataDir: mkdtempSync(path.join(tmpdir(), 'parley-migrate-')) });
    try {
      expect(await pendingMigrations(db)).toEqual(Object.keys(migrations));
      expect(await migrate(db)).toEqual(Object.keys(migrations));
      expect(await migrate(db)).toEqual([]);
      expect(await pendingMigrations(db)).toEqual([]);
      expect(await unknownMigrations(db)).toEqual([]);

      await sql`INSERT INTO kysely_migration (name, timestamp) VALUES ('999_from_the_future', '2030-01-01')`.execute(
        db.kysely,
      );
      expect(await unknownMigrations(db)).toEqual(['999_from_the_future']);
      await expect(migrate(db)).rejects.toThrow(/upgraded by a newer Parley \(migrations 999_from_the_future\)/);
      const names = await sql<{ name: string }>`SELECT name FROM kysely_migration`.execute(db.kysely);
      expect(names.rows).toHaveLength(Object.keys(migrations).length + 1);
    } finally {
      await db.close();
    }
  });
});

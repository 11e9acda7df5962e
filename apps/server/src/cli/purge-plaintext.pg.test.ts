/** `npm run admin -- purge-plaintext` on PostgreSQL (TEST_DATABASE_URL), through the CLI entry. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, migrate, openDb } from '../storage/db.ts';
import { captureOutput } from '../test/cli-output.ts';
import { CUTOFF, expectPurged, type LegacyWorld, seedLegacy, snapshot } from '../test/legacy-plaintext.ts';
import { PURGE_BACKUPS, runAdmin } from './admin.ts';

const url = process.env.TEST_DATABASE_URL;

const capture = captureOutput;

if (url) {
  const schema = `purge_${process.pid}_${Date.now().toString(36)}`;
  let dir: string;
  let db: Db;
  let world: LegacyWorld;
  /** DATA_DIR only holds the session secret the config makes; the rows are in the schema. */
  const env = () => ({ DATA_DIR: dir, DATABASE_URL: url, DATABASE_SCHEMA: schema });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'parley-purge-pg-'));
    db = await openDb({ databaseUrl: url, pgSchema: schema });
    await migrate(db);
    world = await seedLegacy(db);
  });
  afterAll(async () => {
    await db?.close();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await c.end();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('npm run admin -- purge-plaintext (PostgreSQL)', () => {
    it('purges nothing unless confirmed', async () => {
      const before = await snapshot(db.kysely);
      const c = capture();
      expect(await runAdmin(['purge-plaintext'], env(), c.out)).toBe(1);
      expect(c.lines.at(-1)).toBe('ERR Nothing changed: run it in a terminal to confirm, or add --yes.');
      expect(await snapshot(db.kysely)).toEqual(before);
    });

    it('--before DAY purges the rows created before it, then everything, each time with VACUUM FULL', async () => {
      const { alice, bob, carol, ab, ac, orphan } = world;
      const s0 = await snapshot(db.kysely);
      const first = capture();
      expect(await runAdmin(['purge-plaintext', '--before', CUTOFF, '--yes'], env(), first.out)).toBe(0);
      expect(first.lines.slice(-3)).toEqual([
        'Purged 3 messages, 2 chat summaries and 1 request text, and 3 update-log entries.',
        'Compacted: VACUUM FULL messages, user_chats, user_notifications, user_updates.',
        PURGE_BACKUPS,
      ]);
      const s1 = await snapshot(db.kysely);
      expectPurged(s0, s1, {
        messages: ['m1', 'm4', 'm6'],
        summaries: [`${alice}:${ac}`, `${carol}:${ac}`],
        requests: ['r1'],
      });

      const all = capture();
      expect(await runAdmin(['purge-plaintext', '--yes'], env(), all.out)).toBe(0);
      expect(all.lines.at(-3)).toBe('Purged 1 message, 3 chat summaries and 1 request text, and 0 update-log entries.');
      expectPurged(s1, await snapshot(db.kysely), {
        messages: ['m3'],
        summaries: [`${alice}:${ab}`, `${bob}:${ab}`, `${alice}:${orphan}`],
        requests: ['r2'],
      });
    });
  });
} else {
  describe('npm run admin -- purge-plaintext (PostgreSQL)', () => {
    it.skip('skipped: set TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test to run it', () => {});
  });
}

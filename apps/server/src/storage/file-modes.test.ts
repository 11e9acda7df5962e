/**
 * What a deployment writes on disk is its user's alone: DATA_DIR 0700, the SQLite database,
 * its WAL and the session secret 0600 (a backup too: backup.test.ts).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { migrate, openDb } from './db.ts';

const parent = mkdtempSync(path.join(tmpdir(), 'parley-modes-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));
const modeOf = (f: string) => statSync(f).mode & 0o777;

it('keeps DATA_DIR, the database, its WAL and the session secret to the server’s user', async () => {
  const dataDir = path.join(parent, 'data');
  const config = loadConfig({ DATA_DIR: dataDir });
  const db = await openDb({ dataDir: config.dataDir });
  try {
    await migrate(db);
    expect(modeOf(dataDir)).toBe(0o700);
    for (const f of ['parley.sqlite', 'parley.sqlite-wal', 'session-secret']) {
      expect(modeOf(path.join(dataDir, f)), f).toBe(0o600);
    }
  } finally {
    await db.close();
  }
});

/** How the SQLite file is opened: what an acknowledged write promises. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from './db.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function synchronous(opts: Parameters<typeof openDb>[0]): Promise<number> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-db-'));
  dirs.push(dataDir);
  const db = await openDb({ ...opts, dataDir });
  try {
    const r = await sql<{ synchronous: number }>`pragma synchronous`.execute(db.kysely);
    return Number(r.rows[0]?.synchronous);
  } finally {
    await db.close();
  }
}

describe('the SQLite file', () => {
  it('syncs the WAL at every commit unless told otherwise (FULL is 2, NORMAL 1)', async () => {
    expect(await synchronous({})).toBe(2);
    expect(await synchronous({ sqliteSynchronous: 'full' })).toBe(2);
    expect(await synchronous({ sqliteSynchronous: 'normal' })).toBe(1);
  });
});

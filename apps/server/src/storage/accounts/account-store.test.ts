import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { chatStoreContract } from '../../test/chat-store.contract.ts';
import { storeContract } from '../../test/store.contract.ts';
import { migrate, openDb } from '../db.ts';

storeContract('SQLite (file, WAL)', () => openDb({ dataDir: mkdtempSync(path.join(tmpdir(), 'parley-store-')) }));
chatStoreContract('SQLite (file, WAL)', () => openDb({ dataDir: mkdtempSync(path.join(tmpdir(), 'parley-chat-')) }));

describe('SQLite write transactions', () => {
  it('take the write lock at BEGIN, so a writer from another connection cannot slip in between read and write', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'parley-lock-'));
    const db = await openDb({ dataDir: dir });
    await migrate(db);
    const other = new SQLite(path.join(dir, 'parley.sqlite'));
    other.pragma('busy_timeout = 0');
    try {
      await db.kysely.transaction().execute(async (tx) => {
        await tx.selectFrom('settings').selectAll().execute();
        expect(() => other.prepare("INSERT INTO settings (key, value) VALUES ('other', 'x')").run()).toThrow(
          /locked|busy/i,
        );
        await tx.insertInto('settings').values({ key: 'mine', value: 'y' }).execute();
      });
      expect(other.prepare("SELECT value FROM settings WHERE key = 'mine'").get()).toEqual({ value: 'y' });
    } finally {
      other.close();
      await db.close();
    }
  });
});

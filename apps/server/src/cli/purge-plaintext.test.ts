/**
 * `npm run admin -- purge-plaintext` on SQLite, through the CLI entry: rows from before
 * end-to-end encryption lose their text, and no byte of it is left in the database file or
 * its WAL (read raw), while a handle (in the clear by design) and sealed rows are.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, migrate, openDb } from '../storage/db.ts';
import { compact } from '../storage/maintenance/plaintext-purge.ts';
import { ChatStore } from '../storage/messages/chat-store.ts';
import { NotificationStore } from '../storage/social/notification-store.ts';
import { captureOutput } from '../test/cli-output.ts';
import {
  CONTROL_HANDLE,
  CUTOFF,
  expectPurged,
  type LegacyWorld,
  NEW_CANARY,
  OLD_CANARY,
  SEALED_CT,
  seedLegacy,
  snapshot,
} from '../test/legacy-plaintext.ts';
import { PURGE_BACKUPS, runAdmin } from './admin.ts';

/** A message deleted before secure_delete: its text stays in the file's free space until VACUUM. */
const FREED_CANARY = 'FREEDCANARY';
const WARNING =
  'Purged messages show as deleted. This cannot be undone. The database is then compacted, which holds its write lock: best with the server stopped.';

let dir: string;
let file: string;
let world: LegacyWorld;
/** Another connection (a server's, say), open throughout: the -wal file outlives the CLI's. */
let other: SQLite.Database;
const env = () => ({ DATA_DIR: dir });
/** The first line of each command: the database it is about to touch. */
const using = () => `Using the SQLite database ${path.join(dir, 'parley.sqlite')}.`;

const capture = captureOutput;

async function withDb<T>(f: (db: Db) => Promise<T>): Promise<T> {
  const db = await openDb({ databaseUrl: null, dataDir: dir });
  try {
    return await f(db);
  } finally {
    await db.close();
  }
}

/** The database file and its WAL, byte for byte. */
function files() {
  // `other` keeps the WAL: it must be there, cut to nothing, not deleted by the CLI's close.
  expect(existsSync(`${file}-wal`)).toBe(true);
  return { db: readFileSync(file), wal: readFileSync(`${file}-wal`) };
}
const holds = (bytes: Buffer, text: string) => bytes.includes(Buffer.from(text, 'utf8'));

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'parley-purge-'));
  file = path.join(dir, 'parley.sqlite');
  world = await withDb(async (db) => {
    await migrate(db);
    return seedLegacy(db);
  });
  // Once it has read, it shares the WAL: the last connection to close would delete it.
  other = new SQLite(file);
  other.prepare('select count(*) from users').get();
  const old = new SQLite(file);
  old.pragma('secure_delete = OFF');
  old
    .prepare(
      "insert into messages (chat_id, id, sender_id, recipient_id, text, timestamp, status, edited, deleted) values ('x_y', 'gone', 'x', 'y', ?, 1, 'sent', 0, 0)",
    )
    .run(`${FREED_CANARY}: a message of an account deleted long ago`);
  old.prepare("delete from messages where id = 'gone'").run();
  old.close();
});
afterAll(() => {
  other.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run admin -- purge-plaintext (SQLite)', () => {
  it('refuses bad options, and purges nothing unless confirmed', async () => {
    const before = await withDb((db) => snapshot(db.kysely));
    const bad = capture();
    expect(await runAdmin(['purge-plaintext', '--before', '2023-02-30'], env(), bad.out)).toBe(2);
    expect(await runAdmin(['purge-plaintext', '--before'], env(), bad.out)).toBe(2);
    expect(await runAdmin(['purge-plaintext', '--force'], env(), bad.out)).toBe(2);
    expect(bad.lines.map((l) => l.split('\n')[0])).toEqual([
      'ERR --before takes a day, YYYY-MM-DD (got "2023-02-30").',
      'ERR --before takes a day, YYYY-MM-DD (got "").',
      'ERR Unknown option "--force" for purge-plaintext.',
    ]);

    const found = [
      'Plaintext from before end-to-end encryption: 4 messages, 5 chat summaries and 2 request texts.',
      'The update log holds 3 entries: it is emptied, and every client reloads its chats once.',
      WARNING,
    ];
    const no = capture('n');
    expect(await runAdmin(['purge-plaintext'], env(), no.out)).toBe(1);
    expect(no.lines).toEqual([using(), ...found, 'ASK Purge the plaintext? [y/N] ', 'Nothing changed.']);
    const script = capture();
    expect(await runAdmin(['purge-plaintext'], env(), script.out)).toBe(1);
    expect(script.lines).toEqual([
      using(),
      ...found,
      'ERR Nothing changed: run it in a terminal to confirm, or add --yes.',
    ]);

    expect(await withDb((db) => snapshot(db.kysely))).toEqual(before);
    // The texts are there to find, in the file and, written last, in the WAL.
    const { db, wal } = files();
    expect(holds(db, OLD_CANARY)).toBe(true);
    expect(holds(wal, FREED_CANARY)).toBe(true);
  });

  it('--before DAY purges the rows created before it, and compacts the file and the WAL', async () => {
    const before = await withDb((db) => snapshot(db.kysely));
    const c = capture();
    expect(await runAdmin(['purge-plaintext', '--before', CUTOFF, '--yes'], env(), c.out)).toBe(0);
    expect(c.lines).toEqual([
      using(),
      'Plaintext from before end-to-end encryption (rows created before 2024-01-01, UTC): 3 messages, 2 chat summaries and 1 request text.',
      'The update log holds 3 entries: it is emptied, and every client reloads its chats once.',
      WARNING,
      'Purged 3 messages, 2 chat summaries and 1 request text, and 3 update-log entries.',
      'Compacted: VACUUM with secure_delete on; the WAL file truncated.',
      PURGE_BACKUPS,
    ]);
    const { alice, carol, ac } = world;
    const after = await withDb((db) => snapshot(db.kysely));
    // Kept: the NEW message in the clear (m3) with the summaries showing it, and an orphan
    // summary from NEW; sealed rows; a deletion from before (m5); the info notification.
    expectPurged(before, after, {
      messages: ['m1', 'm4', 'm6'],
      summaries: [`${alice}:${ac}`, `${carol}:${ac}`],
      requests: ['r1'],
    });

    const { db, wal } = files();
    expect(wal.length).toBe(0);
    for (const gone of [OLD_CANARY, FREED_CANARY]) expect(holds(Buffer.concat([db, wal]), gone), gone).toBe(false);
    // Positive controls: what is kept is still found by the same search.
    for (const kept of [NEW_CANARY, CONTROL_HANDLE, SEALED_CT]) expect(holds(db, kept), kept).toBe(true);

    await withDb(async (d) => {
      // The server opens SQLite with secure_delete on.
      expect((await sql`pragma secure_delete`.execute(d.kysely)).rows).toEqual([{ secure_delete: 1 }]);
      // A client at any seq is not resumed (the log has a gap) and reloads; one at the new seq is.
      const chat = new ChatStore(d.kysely);
      for (const seq of [0, 2, 3]) expect(await chat.updatesSince(alice, seq)).toBeNull();
      expect(await chat.updatesSince(alice, 4)).toEqual([]);
      const summary = (await chat.chats(alice)).find((s) => s.chatId === ac);
      expect(summary?.last).toMatchObject({ id: 'm4', deleted: true, ct: null, legacyText: null });
    });
  });

  it('without --before purges every row in the clear once confirmed; sealed rows and handles stay', async () => {
    const before = await withDb((db) => snapshot(db.kysely));
    const c = capture('y');
    expect(await runAdmin(['purge-plaintext'], env(), c.out)).toBe(0);
    expect(c.lines).toEqual([
      using(),
      'Plaintext from before end-to-end encryption: 1 message, 3 chat summaries and 1 request text.',
      'The update log holds 0 entries: it is emptied, and every client reloads its chats once.',
      WARNING,
      'ASK Purge the plaintext? [y/N] ',
      'Purged 1 message, 3 chat summaries and 1 request text, and 0 update-log entries.',
      'Compacted: VACUUM with secure_delete on; the WAL file truncated.',
      PURGE_BACKUPS,
    ]);
    const { alice, bob, ab, orphan } = world;
    expectPurged(before, await withDb((db) => snapshot(db.kysely)), {
      messages: ['m3'],
      summaries: [`${alice}:${ab}`, `${bob}:${ab}`, `${alice}:${orphan}`],
      requests: ['r2'],
    });
    const { db, wal } = files();
    expect(wal.length).toBe(0);
    for (const gone of [OLD_CANARY, NEW_CANARY, FREED_CANARY]) {
      expect(holds(Buffer.concat([db, wal]), gone), gone).toBe(false);
    }
    for (const kept of [CONTROL_HANDLE, SEALED_CT]) expect(holds(db, kept), kept).toBe(true);

    // Accepting a purged request opens the chat with no message (never an empty one in the clear).
    await withDb(async (d) => {
      await new NotificationStore(d.kysely).respondRequest(alice, 'r2', true, Date.now());
      const rows = await d.kysely.selectFrom('messages').select('id').where('id', '=', 'r2-msg').execute();
      expect(rows).toEqual([]);
    });
  });

  it('says when the WAL cannot be truncated: another connection still reads an older snapshot', async () => {
    other.exec('begin');
    other.prepare('select count(*) from messages').get();
    try {
      // VACUUM writes the WAL; the reader pins the frames before it, so they cannot go.
      expect(await withDb((db) => compact(db, 300))).toEqual({ engine: 'sqlite', walTruncated: false });
    } finally {
      other.exec('commit');
    }
    expect(await withDb((db) => compact(db, 300))).toEqual({ engine: 'sqlite', walTruncated: true });
    expect(files().wal.length).toBe(0);
  });
});

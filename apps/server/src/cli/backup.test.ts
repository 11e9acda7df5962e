/**
 * backup and restore, on SQLite and on PostgreSQL (when TEST_DATABASE_URL is set): a backup
 * taken while messages are being sent holds every message acknowledged before it began; it
 * restores into an empty folder or database and not over one (unless --force); a server
 * started on the restore has the messages, the sessions (the secret travelled with it) and
 * the attachments' blobs, from files or from S3-compatible storage into another bucket.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { API } from '@app/protocol';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import * as tar from 'tar';
import { afterAll, describe, expect, it } from 'vitest';
import { dropPgSchema, ENGINES, LOOSE_LIMITS, signUp, startTestServer, type TestServer } from '../test/harness.ts';
import { s3Env, startS3 } from '../test/s3.ts';
import { downloadBlob, uploadBlob } from '../test/uploads.ts';
import { WsTestClient } from '../test/ws-client.ts';
import { runAdmin } from './admin.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'parley-backup-test-'));
  dirs.push(d);
  return d;
}

function output() {
  const lines: string[] = [];
  return { lines, out: { log: (l: string) => lines.push(l), error: (l: string) => lines.push(`ERROR ${l}`) } };
}

/** A PostgreSQL database of its own (CREATE DATABASE), dropped by the returned function. */
async function freshPgDatabase(url: string, name: string): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(url);
  u.pathname = `/${name}`;
  return {
    url: u.href,
    async drop() {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

describe.each(ENGINES)('backup and restore on $name', ({ url }) => {
  it('a backup under write load restores every acknowledged message, and the sessions', async () => {
    const tag = `bk${Date.now().toString(36)}`;
    const schema = `t_${tag}`;
    const source = await startTestServer({
      // The sends below go as fast as they are answered, for as long as the backup takes:
      // neither paced per user (write-pace.test.ts tests that) nor per socket (past its burst
      // of 100 frames a frame is refused without its id, and the send waiting for its answer
      // timed out), whatever the machine's speed.
      config: {
        rateLimits: { ...LOOSE_LIMITS, userWritesPerSecond: 1000, userWriteBurst: 10_000 },
        wsFramesPerSecond: 100_000,
        wsBurst: 100_000,
      },
      env: url ? { DATABASE_URL: url, DATABASE_SCHEMA: schema } : {},
    });
    const target = url ? await freshPgDatabase(url, `parley_${tag}`) : null;
    let restored: TestServer | null = null;
    try {
      const alice = await signUp(source);
      const bob = await signUp(source);
      const ws = await WsTestClient.connect(source, alice.client.cookie);
      const acked: string[] = [];
      let stop = false;
      /** How the sends ended (null while they go on). */
      let ended = null as { ok: true } | { ok: false; error: unknown } | null;
      const sending = (async () => {
        for (let i = 0; !stop && i < 2000; i++) acked.push((await ws.sendMessage(bob.user.id, `message ${i}`)).id);
      })().then(
        () => {
          ended = { ok: true };
        },
        (error: unknown) => {
          ended = { ok: false, error };
        },
      );
      /** Until `n` sends are acknowledged; sends that ended (a send failed) fail the test at once. */
      const acknowledged = async (n: number) => {
        while (acked.length < n) {
          if (ended) throw ended.ok ? new Error(`the sends ended at ${acked.length}, before ${n}`) : ended.error;
          await new Promise((r) => setTimeout(r, 10));
        }
      };
      await acknowledged(30);
      // A photo in a message: its blob travels with the backup.
      const photo = new Uint8Array(70_000).map((_, i) => (i * 13) & 0xff);
      const blobId = await uploadBlob(source.url, alice.client.cookie as string, photo);
      const sender = await WsTestClient.connect(source, alice.client.cookie);
      await sender.request('send', {
        ...(await sender.sealedSend(bob.user.id, 'photo', 'with-photo-1')),
        attachments: [blobId],
      });
      await sender.close();

      const file = path.join(tempDir(), 'parley.tar.gz');
      const sourceEnv = url
        ? { DATABASE_URL: url, DATABASE_SCHEMA: schema, DATA_DIR: source.dataDir }
        : { DATA_DIR: source.dataDir };
      const before = [...acked];
      const b = output();
      expect(await runAdmin(['backup', file], sourceEnv, b.out), b.lines.join('\n')).toBe(0);
      // It holds the database and the session secret: the operator's alone.
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const during = acked.length;
      await acknowledged(during + 20);
      stop = true;
      await sending;
      if (ended && !ended.ok) throw ended.error;
      await ws.close();
      expect(acked.length).toBeGreaterThan(before.length);

      const dataDir = tempDir();
      const targetEnv = target
        ? { DATABASE_URL: target.url, DATABASE_SCHEMA: schema, DATA_DIR: dataDir }
        : { DATA_DIR: dataDir };
      const r = output();
      expect(await runAdmin(['restore', file], targetEnv, r.out), r.lines.join('\n')).toBe(0);
      // Not over a deployment: only with --force.
      const again = output();
      expect(await runAdmin(['restore', file], targetEnv, again.out)).toBe(1);
      expect(again.lines.join('\n')).toMatch(/--force/);
      const forced = output();
      expect(await runAdmin(['restore', file, '--force'], targetEnv, forced.out), forced.lines.join('\n')).toBe(0);

      restored = await startTestServer({
        env: target ? { DATABASE_URL: target.url, DATABASE_SCHEMA: schema, DATA_DIR: dataDir } : { DATA_DIR: dataDir },
      });
      const blob = await downloadBlob(restored.url, bob.client.cookie, blobId);
      expect(blob.status).toBe(200);
      expect(blob.bytes).toEqual(photo);
      const ids = new Set(
        (await restored.server.ctx.store.db.selectFrom('messages').select('id').execute()).map((m) => m.id),
      );
      for (const id of before) expect(ids.has(id), `message ${id}, acknowledged before the backup`).toBe(true);
      // A snapshot: nothing beyond what had been sent by its end, and the database whole.
      expect(ids.size).toBeLessThanOrEqual(acked.length);
      // Alice's session (made on the source) is good on the restore: the session secret came along.
      const client = restored.client();
      client.cookie = alice.client.cookie;
      const me = await client.get(API.session);
      expect(me.status).toBe(200);
      expect(me.body.user.id).toBe(alice.user.id);
    } finally {
      await restored?.close();
      await source.close();
      await target?.drop();
      if (url) await dropPgSchema(url, schema);
    }
  }, 120_000);
});

describe.skipIf(!ENGINES[1])('restore on PostgreSQL writes only into the schema it is configured for', () => {
  it('a backup of one schema goes into another, or into the default one, and never over a live one', async () => {
    const url = ENGINES[1]?.url as string;
    const tag = `sc${Date.now().toString(36)}`;
    const [a, b] = [`t_${tag}_a`, `t_${tag}_b`];
    const source = await startTestServer({ env: { DATABASE_URL: url, DATABASE_SCHEMA: a } });
    const fresh = await freshPgDatabase(url, `parley_${tag}`);
    let restored: TestServer | null = null;
    const messagesIn = async (dbUrl: string, schema: string | null) => {
      const c = new pg.Client({ connectionString: dbUrl });
      await c.connect();
      try {
        if (schema) await c.query(`SET search_path TO ${schema}`);
        return Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM messages')).rows[0]?.n);
      } finally {
        await c.end();
      }
    };
    try {
      const [alice, bob] = [await signUp(source), await signUp(source)];
      const ws = await WsTestClient.connect(source, alice.client.cookie);
      for (let i = 0; i < 3; i++) await ws.sendMessage(bob.user.id, `before ${i}`);
      const file = path.join(tempDir(), 'tenant-a.tar.gz');
      const b1 = output();
      expect(
        await runAdmin(['backup', file], { DATABASE_URL: url, DATABASE_SCHEMA: a }, b1.out),
        b1.lines.join('\n'),
      ).toBe(0);
      await ws.sendMessage(bob.user.id, 'after the backup');
      await ws.close();

      // Into schema b of the same database: a's live rows stay as they are.
      const r = output();
      expect(
        await runAdmin(['restore', file], { DATABASE_URL: url, DATABASE_SCHEMA: b }, r.out),
        r.lines.join('\n'),
      ).toBe(0);
      expect(await messagesIn(url, a)).toBe(4);
      expect(await messagesIn(url, b)).toBe(3);
      // Not over a schema holding Parley's tables without --force; never under a running server.
      const again = output();
      expect(await runAdmin(['restore', file], { DATABASE_URL: url, DATABASE_SCHEMA: b }, again.out)).toBe(1);
      expect(again.lines.join('\n')).toMatch(/already holds Parley tables.*--force/);
      for (const force of [[], ['--force']]) {
        const live = output();
        expect(await runAdmin(['restore', file, ...force], { DATABASE_URL: url, DATABASE_SCHEMA: a }, live.out)).toBe(
          1,
        );
        expect(live.lines.join('\n')).toMatch(/Parley servers are running on the schema .* stop every one first/);
      }
      expect(await messagesIn(url, a)).toBe(4);
      // Into the default schema of another database.
      const d = output();
      expect(await runAdmin(['restore', file], { DATABASE_URL: fresh.url }, d.out), d.lines.join('\n')).toBe(0);
      expect(await messagesIn(fresh.url, null)).toBe(3);

      // A server on b: the same people, signed in still, and their chat.
      restored = await startTestServer({ env: { DATABASE_URL: url, DATABASE_SCHEMA: b } });
      const client = restored.client();
      client.cookie = alice.client.cookie;
      expect((await client.get(API.session)).status).toBe(200);
    } finally {
      await restored?.close();
      await source.close();
      await fresh.drop();
      await dropPgSchema(url, b);
      await dropPgSchema(url, a);
    }
  }, 60_000);
});

it('carries blobs kept in S3: out of one bucket, into another, in place of what was there', async () => {
  const [from, into] = [await startS3('from'), await startS3('into')];
  const dataDir = tempDir();
  let source: TestServer | null = null;
  let restored: TestServer | null = null;
  try {
    source = await startTestServer({ env: s3Env(from.settings) });
    const [alice, bob] = [await signUp(source), await signUp(source)];
    const photo = new Uint8Array(150_000).map((_, i) => (i * 31) & 0xff);
    const blobId = await uploadBlob(source.url, alice.client.cookie as string, photo);
    const sender = await WsTestClient.connect(source, alice.client.cookie);
    await sender.request('send', {
      ...(await sender.sealedSend(bob.user.id, 'photo', 's3-photo')),
      attachments: [blobId],
    });
    await sender.close();
    const file = path.join(tempDir(), 'parley.tar.gz');
    const b = output();
    expect(
      await runAdmin(['backup', file], { ...s3Env(from.settings), DATA_DIR: source.dataDir }, b.out),
      b.lines.join('\n'),
    ).toBe(0);
    expect(b.lines.join('\n')).toMatch(/and 1 attachment/);

    const targetEnv = { ...s3Env(into.settings), DATA_DIR: dataDir };
    restored = await startTestServer({ env: targetEnv });
    // A blob of the target's own, which the restored database does not name: it goes.
    const stray = await uploadBlob(restored.url, (await signUp(restored)).client.cookie as string, photo);
    await restored.close();
    restored = null;
    const r = output();
    expect(await runAdmin(['restore', file, '--force'], targetEnv, r.out), r.lines.join('\n')).toBe(0);
    restored = await startTestServer({ env: targetEnv });
    const blob = await downloadBlob(restored.url, bob.client.cookie, blobId);
    expect(blob.status).toBe(200);
    expect(blob.bytes).toEqual(photo);
    expect(await restored.server.ctx.attachments.blobs.offset(stray)).toBeNull();
  } finally {
    await restored?.close();
    await source?.close();
    await from.close();
    await into.close();
  }
}, 60_000);

it('refuses a backup of a newer Parley, and touches nothing', async () => {
  const source = await startTestServer();
  const file = path.join(tempDir(), 'parley.tar.gz');
  try {
    await signUp(source);
    expect(await runAdmin(['backup', file], { DATA_DIR: source.dataDir }, output().out)).toBe(0);
  } finally {
    await source.close();
  }
  // As a newer release would have made it: one migration more, in the manifest and the file.
  const unpacked = tempDir();
  await tar.x({ file, cwd: unpacked });
  const manifestFile = path.join(unpacked, 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { migrations: string[]; appVersion: string };
  writeFileSync(manifestFile, JSON.stringify({ ...manifest, migrations: [...manifest.migrations, '999-future'] }));
  const db = new SQLite(path.join(unpacked, 'parley.sqlite'));
  db.prepare('INSERT INTO kysely_migration (name, timestamp) VALUES (?, ?)').run(
    '999-future',
    new Date().toISOString(),
  );
  db.close();
  const newer = path.join(tempDir(), 'newer.tar.gz');
  await tar.c({ file: newer, cwd: unpacked, gzip: true }, readdirSync(unpacked));
  const target = tempDir();
  const o = output();
  expect(await runAdmin(['restore', newer], { DATA_DIR: target }, o.out)).toBe(1);
  expect(o.lines.join('\n')).toMatch(
    /a backup of a newer Parley .*999-future.*Restore it with that version or a newer one/,
  );
  expect(existsSync(path.join(target, 'parley.sqlite'))).toBe(false);
  // Without the manifest's word (an older backup format), the file itself says so.
  writeFileSync(manifestFile, JSON.stringify({ ...manifest, migrations: undefined }));
  await tar.c({ file: newer, cwd: unpacked, gzip: true }, readdirSync(unpacked));
  expect(await runAdmin(['restore', newer], { DATA_DIR: target }, output().out)).toBe(1);
  expect(existsSync(path.join(target, 'parley.sqlite'))).toBe(false);
});

it('refuses a file that is not a backup, and a backup of the other engine', async () => {
  const notBackup = path.join(tempDir(), 'x.tar.gz');
  writeFileSync(notBackup, 'not a tarball');
  const o = output();
  expect(await runAdmin(['restore', notBackup], { DATA_DIR: tempDir() }, o.out)).toBe(1);
  expect(o.lines.join('\n')).toMatch(/^ERROR restore failed/m);
  const u = output();
  expect(await runAdmin(['backup'], { DATA_DIR: tempDir() }, u.out)).toBe(2);
});

it('never restores under a running server, even with --force; a crashed one’s pid file does not count', async () => {
  const source = await startTestServer();
  const file = path.join(tempDir(), 'parley.tar.gz');
  try {
    await signUp(source);
    expect(await runAdmin(['backup', file], { DATA_DIR: source.dataDir }, output().out)).toBe(0);
    const o = output();
    expect(await runAdmin(['restore', file, '--force'], { DATA_DIR: source.dataDir }, o.out)).toBe(1);
    expect(o.lines.join('\n')).toMatch(/A Parley server \(pid \d+\) is running on .*: stop it first/);
  } finally {
    await source.close();
  }
  const target = tempDir();
  // No process has this pid (above the kernel's pid_max).
  writeFileSync(path.join(target, 'parley.pid'), '99999999\n');
  expect(await runAdmin(['restore', file], { DATA_DIR: target }, output().out)).toBe(0);
});

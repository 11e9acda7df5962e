/**
 * No message text at rest (docs/e2ee.md). Two people and a stranger leave canaries
 * (at-rest.ts: sent, non-ASCII, edited, deleted, a reply, a request, one unsent); then the
 * raw bytes a server keeps (and prints) are scanned for them in UTF-8, UTF-16LE, hex and
 * base64/base64url at every alignment, beside a positive control (a handle, plaintext by
 * design) the same scan must find in the same bytes. On SQLite: the database, WAL, shared
 * memory, mail outbox and the server's log. On PostgreSQL and Redis with two processes:
 * a pg_dump, what crossed Redis (pub/sub and MONITOR) and what stays in it, both logs.
 * And once with the web app built with the test-only null cipher: the same scan must
 * find the canaries, so it cannot pass vacuously.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import {
  canariesIn,
  deliverUnsent,
  expectBrowsersSealed,
  expectSealed,
  leaveCanaries,
  makeCanaries,
  STORED,
  sqliteFiles,
} from './at-rest.ts';
import { expect, type People, type Person, test } from './chat-helpers.ts';
import { type PrivateServer, startPrivateServer } from './private-server.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** The suite's web build (npm run build, or WEB_DIST), which every other test serves. */
const SUITE_DIST = process.env.WEB_DIST ? path.resolve(process.env.WEB_DIST) : path.join(ROOT, 'apps/web/dist-test');
const NULL_MARK = 'PARLEY TEST BUILD';
/** As verbose as the server gets: the strictest log to scan. */
const LOG_LEVEL = 'trace';

async function threePeople(people: People, baseURLs: [string, string, string]): Promise<[Person, Person, Person]> {
  const [a, b, c] = baseURLs;
  return Promise.all([
    people.person('alice', { baseURL: a }),
    people.person('bob', { baseURL: b }),
    people.person('carol', { baseURL: c }),
  ]);
}

/** Every JavaScript file of a web build, concatenated. */
function scripts(dist: string): string {
  const dir = path.join(dist, 'assets');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .map((f) => readFileSync(path.join(dir, f), 'utf8'))
    .join('\n');
}

/** `vite build` of apps/web into `outDir`, with the null cipher on (and the test build's KDF floor). */
async function buildNullCipher(outDir: string): Promise<void> {
  const vite = path.join(ROOT, 'node_modules/vite/bin/vite.js');
  const child = spawn(process.execPath, [vite, 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'], {
    cwd: path.join(ROOT, 'apps/web'),
    env: { ...process.env, PARLEY_TEST_NULL_CIPHER: '1', PARLEY_TEST_KDF_FLOOR: '10', PARLEY_TEST_HOOKS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`vite build with PARLEY_TEST_NULL_CIPHER=1 failed (${code}):\n${output}`);
}

test.describe('no message text at rest', () => {
  test('SQLite: the database, WAL, mail outbox, server log and every browser hold ciphertext only', async ({
    people,
  }) => {
    test.setTimeout(180_000);
    const server = await startPrivateServer({ logLevel: LOG_LEVEL });
    try {
      const [alice, bob, carol] = await threePeople(people, [server.baseURL, server.baseURL, server.baseURL]);
      const canaries = makeCanaries();
      await leaveCanaries(alice, bob, carol, canaries);

      const control = alice.user.username;
      expectSealed(sqliteFiles(server.dataDir), canaries, control, 'the database, WAL and outbox');
      expectSealed(Buffer.from(server.output()), canaries, control, 'the server log');
      await expectBrowsersSealed([alice, bob, carol], canaries);
      await deliverUnsent(alice, canaries);
    } finally {
      await server.stop();
    }
  });

  test('the web app built with the test-only null cipher: the same scan finds the canaries', async ({ people }) => {
    // The extra build (about 2 s alone, up to 30 s beside a busy worker), then the same scenario (up to 90 s).
    test.setTimeout(2 * (30_000 + 90_000));
    const normal = scripts(SUITE_DIST);
    expect(normal, 'the suite’s web build is built').toContain('parley/msg/v1');
    // A normal build has no trace of the switch: neither its name nor the code behind it.
    expect(normal).not.toContain('__PARLEY_TEST_NULL_CIPHER__');
    expect(normal).not.toContain(NULL_MARK);

    const dist = mkdtempSync(path.join(os.tmpdir(), 'parley-null-cipher-'));
    try {
      const started = Date.now();
      await buildNullCipher(dist);
      test.info().annotations.push({ type: 'null-cipher build', description: `${Date.now() - started} ms` });
      expect(scripts(dist)).toContain(NULL_MARK);
      const server = await startPrivateServer({ webDist: dist, logLevel: LOG_LEVEL });
      try {
        const [alice, bob, carol] = await threePeople(people, [server.baseURL, server.baseURL, server.baseURL]);
        const warned = alice.page.waitForEvent('console', (m) => m.text().includes(NULL_MARK));
        const canaries = makeCanaries();
        await leaveCanaries(alice, bob, carol, canaries);
        await warned;

        // What the server stores, it stores readable: the check that passes above fails here.
        const disk = sqliteFiles(server.dataDir);
        expect(canariesIn(disk, canaries)).toEqual(expect.arrayContaining(STORED));
        expect(() => expectSealed(disk, canaries, alice.user.username, 'the database')).toThrow(/canaries in/);
        await deliverUnsent(alice, canaries);
      } finally {
        await server.stop();
      }
    } finally {
      rmSync(dist, { recursive: true, force: true });
    }
  });
});

// ---- PostgreSQL and Redis ---------------------------------------------------------------

const pgUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;

/** Every value under `prefix` in Redis (each key by its type), and the key names. */
async function redisContents(url: string, prefix: string): Promise<Buffer> {
  const r = new Redis(url);
  const out: Buffer[] = [];
  const read: Record<string, string[]> = {
    string: ['GET'],
    hash: ['HGETALL'],
    list: ['LRANGE', '0', '-1'],
    set: ['SMEMBERS'],
    zset: ['ZRANGE', '0', '-1', 'WITHSCORES'],
    stream: ['XRANGE', '-', '+'],
  };
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scanBuffer(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = String(next);
      for (const key of keys) {
        const [command, ...args] = read[await r.type(key)] ?? [];
        out.push(key);
        if (command) out.push(...flatBuffers(await r.callBuffer(command, key, ...args)));
      }
    } while (cursor !== '0');
  } finally {
    r.disconnect();
  }
  return Buffer.concat(out);
}

function flatBuffers(v: unknown): Buffer[] {
  if (Buffer.isBuffer(v)) return [v];
  return Array.isArray(v) ? v.flatMap(flatBuffers) : [];
}

/**
 * What crosses Redis while it runs: every publication on the deployment's channels (raw
 * bytes, PSUBSCRIBE) and every command any client sends (MONITOR).
 */
async function captureRedis(url: string, prefix: string): Promise<() => Buffer> {
  const chunks: Buffer[] = [];
  const sub = new Redis(url);
  sub.on('pmessageBuffer', (_pattern: Buffer, channel: Buffer, message: Buffer) => chunks.push(channel, message));
  await sub.psubscribe(`${prefix}*`);
  const monitor = await new Redis(url).monitor();
  monitor.on('monitor', (_time: string, args: string[]) => chunks.push(Buffer.from(`${args.join(' ')}\n`)));
  return () => {
    sub.disconnect();
    monitor.disconnect();
    return Buffer.concat(chunks);
  };
}

function pgDump(url: string, schema: string): Buffer {
  const r = spawnSync('pg_dump', ['--dbname', url, '--schema', schema, '--no-owner'], { maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`pg_dump failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** The ciphertext of every message stored (a deleted one keeps none). */
async function storedCiphertexts(url: string, schema: string): Promise<string[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query<{ text: string }>(`SELECT text FROM ${schema}.messages WHERE text <> ''`);
    return r.rows.map((row) => row.text);
  } finally {
    await c.end();
  }
}

/** The test's PostgreSQL schema and Redis keys. */
async function dropDeployment(url: string, schema: string, redis: string, prefix: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await c.end();
  const r = new Redis(redis);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await r.del(...keys);
    } while (cursor !== '0');
  } finally {
    r.disconnect();
  }
}

test.describe('no message text at rest, PostgreSQL and Redis', () => {
  test.skip(!pgUrl || !redisUrl, 'needs TEST_DATABASE_URL and TEST_REDIS_URL');

  test('two processes: a pg_dump, what crossed Redis and stays in it, and both logs hold ciphertext only', async ({
    people,
  }) => {
    test.setTimeout(240_000);
    const tag = `${process.pid}_${test.info().workerIndex}_${Date.now().toString(36)}`;
    const schema = `e2e_at_rest_${tag}`;
    const prefix = `e2e_at_rest_${tag}`;
    const env = { DATABASE_URL: pgUrl as string, DATABASE_SCHEMA: schema, REDIS_URL: redisUrl as string };
    const stopCapture = await captureRedis(redisUrl as string, prefix);
    const servers: PrivateServer[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        servers.push(await startPrivateServer({ logLevel: LOG_LEVEL, env: { ...env, REDIS_PREFIX: prefix } }));
      }
      const [one, two] = servers.map((s) => s.baseURL) as [string, string];
      // Alice and Carol on one process, Bob on the other: every message to him crosses Redis.
      const [alice, bob, carol] = await threePeople(people, [one, two, one]);
      const canaries = makeCanaries();
      await leaveCanaries(alice, bob, carol, canaries);
      await deliverUnsent(alice, canaries);

      const control = alice.user.username;
      expectSealed(pgDump(pgUrl as string, schema), canaries, control, 'the pg_dump');
      const crossed = stopCapture();
      // Every message crossed Redis (Bob is on the other process than Alice and Carol): the
      // capture holds each stored ciphertext, and no text.
      const stored = await storedCiphertexts(pgUrl as string, schema);
      expect(stored.length).toBeGreaterThanOrEqual(5);
      for (const ct of stored)
        expect(crossed.includes(Buffer.from(ct)), `ciphertext ${ct.slice(0, 16)}… crossed`).toBe(true);
      expectSealed(crossed, canaries, control, 'the Redis traffic');
      expectSealed(await redisContents(redisUrl as string, prefix), canaries, control, 'the Redis keys');
      await expectBrowsersSealed([alice, bob, carol], canaries);
      // Stopped, so every line is out. Each log names the person who signed up there (the mail it sent).
      await Promise.all(servers.map((s) => s.stop()));
      for (const [i, s] of servers.entries()) {
        const signedUp = [alice, bob][i] as Person;
        expectSealed(Buffer.from(s.output()), canaries, signedUp.user.username, `the log of process ${i + 1}`);
      }
    } finally {
      stopCapture();
      await Promise.all(servers.map((s) => s.stop()));
      await dropDeployment(pgUrl as string, schema, redisUrl as string, prefix);
    }
  });
});

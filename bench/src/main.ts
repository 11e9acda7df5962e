/**
 * `npm run bench`: the real server against a bare `ws` relay, in the same run, on
 * loopback, driven by WebSocket clients in separate load-generator processes.
 *
 * For each target (the server, then the relay) it measures:
 *  - connections held: N clients connect and greet; server RSS before and after, per
 *    idle connection;
 *  - latency at a fixed offered rate: p50/p95/p99 from send to receipt by the other
 *    client, with all N connected;
 *  - durable throughput: pairs of clients send with a window of messages in flight;
 *    messages acknowledged (stored) and delivered per second.
 * Every figure is also given as a ratio to the relay's (these machines are shared).
 * Messages are sealed, as browsers send them: every user has keys and every pair a chat
 * key (seed()), and each send carries a ciphertext the size a real message's text seals
 * to (sealed-mix.ts: the length mix, printed at the start).
 *
 *   npm run bench                  10,000 connections, embedded SQLite (a few minutes)
 *   npm run bench -- --quick       500 connections, short phases (under a minute)
 *   npm run bench -- --pg          PostgreSQL + Redis (TEST_DATABASE_URL/DATABASE_URL, TEST_REDIS_URL/REDIS_URL)
 *   npm run bench -- --connections 2000 --rate 1000 --senders 400 --window 4
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ChatKeyEnvelopeWire, chatIdOf, chatKeyEnvelopeSchema, PROTOCOL_VERSION } from '@app/protocol';
import { hashSecret, hashToken, migrate, newToken, openDb, Store } from '@app/server';
import pg from 'pg';
import { MetricsCheck } from './metrics-check.ts';
import { BENCH_EPOCH, describeMix } from './sealed-mix.ts';
import { startRelay, startServer, type Target } from './targets.ts';
import type { ClientSpec, Command, Reply } from './worker.ts';

const args = process.argv.slice(2);
const opt = (name: string, fallback: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const quick = args.includes('--quick');
/** --profile DIR: the server writes a V8 CPU profile there (open it in Chrome DevTools). */
const profileDir = args.includes('--profile') ? path.resolve(args[args.indexOf('--profile') + 1] ?? 'profiles') : null;
const serverOnly = args.includes('--server-only');
const usePg = args.includes('--pg');
const N = opt('--connections', quick ? 500 : 10_000);
const RATE = opt('--rate', quick ? 500 : 1000);
const LATENCY_SENDERS = Math.min(N, opt('--latency-senders', 200));
const SENDERS = Math.min(N, opt('--senders', quick ? 200 : 400));
const WINDOW = opt('--window', 4);
const WORKERS = opt('--workers', 2);
const PHASE_MS = quick ? 3_000 : 10_000;
const WARMUP_MS = quick ? 1_000 : 2_000;
const SECRET = 'bench-session-secret-0123456789abcdef0123';

const pgUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const redisUrl = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const tag = `${process.pid}_${Date.now().toString(36)}`;
const schema = `bench_${tag}`;

// ---- helpers -----------------------------------------------------------------------------

/** The process's resident memory after a garbage collection (SIGUSR2, see main.ts). */
async function settledRss(pid: number): Promise<number> {
  process.kill(pid, 'SIGUSR2');
  await sleep(500);
  return rssOf(pid);
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb * 1024;
}

/** CPU time a process has used (ms), from /proc. */
function cpuOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  const ticks = Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  return (ticks / 100) * 1000;
}

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

class Workers {
  private readonly procs: ChildProcess[] = [];
  constructor(n: number) {
    for (let i = 0; i < n; i++)
      this.procs.push(fork(path.join(import.meta.dirname, 'worker.ts'), { stdio: 'inherit' }));
  }
  private ask(p: ChildProcess, cmd: Command): Promise<Reply> {
    return new Promise((resolve) => {
      p.once('message', (r: Reply) => resolve(r));
      p.send(cmd);
    });
  }
  all(make: (i: number) => Command): Promise<Reply[]> {
    return Promise.all(this.procs.map((p, i) => this.ask(p, make(i))));
  }
  get size(): number {
    return this.procs.length;
  }
}

/** Who user `i` of `n` writes to: 2k and 2k+1 write to each other (an odd last one, to the first). */
function peerIndex(i: number, n: number): number {
  const p = i % 2 === 0 ? i + 1 : i - 1;
  return p < n ? p : 0;
}

/** Clients in pairs (see peerIndex), dealt to the workers in turn. */
function deal(users: { id: string; token: string }[], workers: number): ClientSpec[][] {
  const shares: ClientSpec[][] = Array.from({ length: workers }, () => []);
  users.forEach((u, i) => {
    const peer = users[peerIndex(i, users.length)];
    shares[i % workers]?.push({ userId: u.id, token: u.token, peer: peer?.id ?? u.id });
  });
  return shares;
}

// ---- the target under test ---------------------------------------------------------------

async function seed(n: number, dataDir: string): Promise<{ id: string; token: string }[]> {
  const db = await openDb(usePg ? { databaseUrl: pgUrl, pgSchema: schema } : { dataDir });
  await migrate(db);
  const store = new Store(db);
  const passwordHash = await hashSecret('bench-password');
  const now = Date.now();
  const users: { id: string; token: string }[] = [];
  for (let i = 0; i < n; i++) {
    const u = await store.createUser({
      username: `b${i}_${tag}`.slice(0, 20),
      name: `Bench ${i}`,
      email: `b${i}_${tag}@bench.example`,
      phone: '5551234567',
      age: 30,
      passwordHash,
      now,
    });
    const token = newToken();
    await store.createSession({
      tokenHash: hashToken(SECRET, token),
      userId: u.id,
      createdAt: now,
      authAt: now,
      lastUsedAt: now,
      expiresAt: now + 86_400_000,
      persistent: true,
      userAgent: 'bench',
      ip: '127.0.0.1',
    });
    users.push({ id: u.id, token });
  }
  await seedKeys(
    store,
    users.map((u) => u.id),
    now,
  );
  await db.close();
  return users;
}

const b64url = (chars: number) =>
  randomBytes(Math.ceil((chars * 3) / 4))
    .toString('base64url')
    .slice(0, chars);

/** Rows per insert: 10 columns × 500 stays under SQLite's and PostgreSQL's bound-parameter limits. */
const BATCH = 500;

/**
 * Every user's keys (epoch 1, as at sign-up: public keys, their signature and a sealed
 * bundle of realistic lengths that open nothing) and every pair's chat key for epoch 1,
 * sealed to both users' epoch-1 keys (what the first message of a chat brings): so each
 * send is under the chat's current key, as in a chat already under way. Batched inserts.
 */
async function seedKeys(store: Store, ids: string[], now: number): Promise<void> {
  const keys = ids.map((userId) => ({
    user_id: userId,
    id_version: 1,
    ik_pub: b64url(43),
    uk_epoch: 1,
    uk_pub: b64url(43),
    uk_sig: b64url(86),
    // One key epoch's bundle: about 450 characters (see sealedBundleSchema).
    bundle: b64url(448),
    bundle_version: 1,
    bundle_stale: 0 as const,
    updated_at: now,
  }));
  for (let i = 0; i < keys.length; i += BATCH) {
    await store.db
      .insertInto('user_keys')
      .values(keys.slice(i, i + BATCH))
      .execute();
  }
  const chats = new Map<string, ChatKeyEnvelopeWire>();
  ids.forEach((id, i) => {
    const peer = ids[peerIndex(i, ids.length)];
    if (peer === undefined || peer === id) return;
    const chatId = chatIdOf(id, peer);
    if (chats.has(chatId)) return;
    const [low, high] = chatId.split('_') as [string, string];
    const seal = (userId: string) => ({ userId, ukEpoch: 1, enc: b64url(43), ct: b64url(64) });
    // Shaped like sampleChatKey (packages/protocol/src/test/samples.ts); checked like a send's.
    chats.set(
      chatId,
      chatKeyEnvelopeSchema.parse({
        chatId,
        epoch: BENCH_EPOCH,
        creatorId: low,
        seals: [seal(low), seal(high)],
        sig: b64url(86),
      }),
    );
  });
  const rows = [...chats.values()].map((e) => ({
    chat_id: e.chatId,
    epoch: e.epoch,
    creator_id: e.creatorId,
    uk_epochs: '1,1',
    envelope: JSON.stringify(e),
    created_at: now,
  }));
  for (let i = 0; i < rows.length; i += BATCH) {
    await store.db
      .insertInto('chat_keys')
      .values(rows.slice(i, i + BATCH))
      .execute();
  }
}

interface Result {
  connected: number;
  rssPerConn: number;
  rssBase: number;
  p50: number;
  p95: number;
  p99: number;
  latencySamples: number;
  latencySent: number;
  ackedPerSec: number;
  deliveredPerSec: number;
  errors: number;
  firstError: string | null;
  /** CPU cores busy during the throughput phase: the target, and all load generators. */
  serverBusy: number;
  generatorBusy: number;
  /** Throughput phase, per message: the send frame's JSON, its ciphertext, the text it stands for, the delivery's JSON. */
  sendFrame: number;
  ct: number;
  textChars: number;
  textBytes: number;
  deliveryFrame: number;
  /** The server's /metrics message counter against the bench's count (null: the relay). */
  metrics: MetricsCheck | null;
}

async function run(target: Target, users: { id: string; token: string }[]): Promise<Result> {
  const workers = new Workers(WORKERS);
  const shares = deal(users, workers.size);
  await sleep(1000);
  const rssBase = await settledRss(target.pid);
  const metrics = target.metrics ? await MetricsCheck.start(target.metrics) : null;
  const ackedTotal = (replies: Reply[]) =>
    replies.reduce((n, r) => n + (r.ok === 'latency' || r.ok === 'throughput' ? r.ackedTotal : 0), 0);
  const conn = await workers.all((i) => ({
    cmd: 'connect',
    url: target.wsUrl,
    clients: shares[i] ?? [],
    relay: target.relay,
    version: PROTOCOL_VERSION,
  }));
  const connected = conn.reduce((n, r) => n + (r.ok === 'connected' ? r.connected : 0), 0);
  const failed = conn.reduce((n, r) => n + (r.ok === 'connected' ? r.failed : 0), 0);
  if (failed)
    console.log(
      `  ${failed} connections failed: ${conn.map((r) => (r.ok === 'connected' ? r.firstError : '')).join(' ')}`,
    );
  await sleep(1500);
  const rssConnected = await settledRss(target.pid);

  const lat = await workers.all(() => ({
    cmd: 'latency',
    senders: Math.ceil(LATENCY_SENDERS / workers.size),
    ratePerSecond: RATE / workers.size,
    durationMs: PHASE_MS,
  }));
  const samples = lat.flatMap((r) => (r.ok === 'latency' ? r.samples : [])).sort((a, b) => a - b);
  const sent = lat.reduce((n, r) => n + (r.ok === 'latency' ? r.sent : 0), 0);
  await metrics?.phase('latency', ackedTotal(lat));

  const cpuStart = { at: performance.now() + WARMUP_MS, cpu: 0 };
  setTimeout(() => {
    cpuStart.cpu = cpuOf(target.pid);
  }, WARMUP_MS);
  let serverBusy = Number.NaN;
  setTimeout(() => {
    serverBusy = (cpuOf(target.pid) - cpuStart.cpu) / (performance.now() - cpuStart.at);
  }, WARMUP_MS + PHASE_MS);
  const tp = await workers.all(() => ({
    cmd: 'throughput',
    senders: Math.ceil(SENDERS / workers.size),
    window: WINDOW,
    warmupMs: WARMUP_MS,
    durationMs: PHASE_MS,
  }));
  const acked = tp.reduce((n, r) => n + (r.ok === 'throughput' ? r.acked : 0), 0);
  await metrics?.phase('throughput', ackedTotal(tp));
  const delivered = tp.reduce((n, r) => n + (r.ok === 'throughput' ? r.delivered : 0), 0);
  const generatorBusy = tp.reduce((n, r) => n + (r.ok === 'throughput' ? r.cpuMs : 0), 0) / PHASE_MS;
  const sum = (k: 'sent' | 'sentFrameBytes' | 'ctBytes' | 'textChars' | 'textBytes' | 'deliveredFrameBytes') =>
    tp.reduce((n, r) => n + (r.ok === 'throughput' ? r[k] : 0), 0);
  const sentMsgs = sum('sent');
  const errors = [...lat, ...tp].reduce((n, r) => n + ('errors' in r ? r.errors : 0), 0);
  const firstError = [...lat, ...tp].map((r) => ('firstError' in r ? r.firstError : null)).find(Boolean) ?? null;
  await workers.all(() => ({ cmd: 'close' }));
  return {
    connected,
    rssBase,
    rssPerConn: connected ? (rssConnected - rssBase) / connected : Number.NaN,
    p50: percentile(samples, 0.5),
    p95: percentile(samples, 0.95),
    p99: percentile(samples, 0.99),
    latencySamples: samples.length,
    latencySent: sent,
    ackedPerSec: (acked / PHASE_MS) * 1000,
    deliveredPerSec: (delivered / PHASE_MS) * 1000,
    errors,
    firstError,
    serverBusy,
    generatorBusy,
    sendFrame: sum('sentFrameBytes') / sentMsgs,
    ct: sum('ctBytes') / sentMsgs,
    textChars: sum('textChars') / sentMsgs,
    textBytes: sum('textBytes') / sentMsgs,
    deliveryFrame: delivered ? sum('deliveredFrameBytes') / delivered : Number.NaN,
    metrics,
  };
}

// ---- main --------------------------------------------------------------------------------

const cpus = os.cpus();
console.log(
  `Parley bench${quick ? ' (quick)' : ''}: ${cpus.length}× ${cpus[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ` +
    `node ${process.version}, ${os.platform()} ${os.release()}, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
);
console.log(
  `${N.toLocaleString('en-US')} WebSocket clients in ${WORKERS} load-generator processes on the same machine; ` +
    `latency at ${RATE} msg/s offered (${LATENCY_SENDERS} senders), throughput with ${SENDERS} senders × ${WINDOW} in flight; ` +
    `phases ${PHASE_MS / 1000} s`,
);
console.log('Sealed messages, sized like real ones: text length mix → base64url ciphertext (ct) length');
for (const line of describeMix()) console.log(line);
console.log('');

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'parley-bench-'));
const t0 = Date.now();
const users = await seed(N, dataDir);
console.log(
  `seeded ${N.toLocaleString('en-US')} users, sessions, keys and chat keys in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
);

const results: { target: Target; r: Result }[] = [];
const setup = { usePg, pgUrl, redisUrl, schema, tag, secret: SECRET, profileDir };
const parley = () => startServer(dataDir, setup);
for (const start of serverOnly ? [parley] : [startRelay, parley]) {
  const target = await start();
  console.log(`running against ${target.name}...`);
  results.push({ target, r: await run(target, users) });
  await target.stop();
}
rmSync(dataDir, { recursive: true, force: true });
if (usePg) {
  const c = new pg.Client({ connectionString: pgUrl });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await c.end();
}

const base = results[0]?.r as Result;
const fmt = (v: number, digits = 0) =>
  Number.isFinite(v)
    ? v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : 'n/a';
const ratio = (v: number, b: number) => (Number.isFinite(v) && b > 0 ? `${(v / b).toFixed(2)}×` : 'n/a');
console.log('');
for (const { target, r } of results) {
  console.log(`${target.name}`);
  console.log(`  connections held            ${fmt(r.connected)} (of ${fmt(N)})`);
  console.log(
    `  server RSS per idle conn    ${fmt(r.rssPerConn / 1024, 1)} KB  (RSS ${fmt(r.rssBase / 2 ** 20, 0)} MB before clients)  ${ratio(r.rssPerConn, base.rssPerConn)} relay`,
  );
  console.log(
    `  latency @ ${RATE} msg/s        p50 ${fmt(r.p50, 2)} ms  p95 ${fmt(r.p95, 2)} ms  p99 ${fmt(r.p99, 2)} ms  (${fmt(r.latencySamples)}/${fmt(r.latencySent)} received)  p99 ${ratio(r.p99, base.p99)} relay`,
  );
  console.log(
    `  durable throughput          ${fmt(r.deliveredPerSec)} msg/s delivered, ${fmt(r.ackedPerSec)} acknowledged  ${ratio(r.deliveredPerSec, base.deliveredPerSec)} relay`,
  );
  console.log(
    `  CPU during throughput       target ${fmt(r.serverBusy * 100)}% of a core, load generators ${fmt(r.generatorBusy * 100)}%`,
  );
  console.log(
    `  sent per message            text ${fmt(r.textChars)} chars (${fmt(r.textBytes)} B UTF-8) → ct ${fmt(r.ct)} chars; ` +
      `JSON frames: send ${fmt(r.sendFrame)} B, delivery ${fmt(r.deliveryFrame)} B`,
  );
  if (r.metrics) console.log(`  /metrics                    ${r.metrics.describe((v) => fmt(v))}`);
  if (r.errors) console.log(`  errors                      ${r.errors} (first: ${r.firstError})`);
}
const server = results.at(-1)?.r as Result;
console.log('\nTargets (this machine, load generator included):');
console.log(
  `  ≥ 10,000 durable msg/s                 ${fmt(server.deliveredPerSec)} ${server.deliveredPerSec >= 10_000 ? 'met' : 'missed'}`,
);
console.log(
  `  ≥ 0.5× the relay's rate                ${ratio(server.deliveredPerSec, base.deliveredPerSec)} ${server.deliveredPerSec >= base.deliveredPerSec / 2 ? 'met' : 'missed'}`,
);
console.log(
  `  p99 < 20 ms at ${RATE} msg/s, ${fmt(N)} clients  ${fmt(server.p99, 2)} ms ${server.p99 < 20 ? 'met' : 'missed'}`,
);
console.log(
  `  ≤ 12 KB per idle connection            ${fmt(server.rssPerConn / 1024, 1)} KB ${server.rssPerConn <= 12 * 1024 ? 'met' : 'missed'}`,
);
// The server's counters must agree with what the bench saw acknowledged.
process.exit(server.metrics && !server.metrics.matches ? 1 : 0);

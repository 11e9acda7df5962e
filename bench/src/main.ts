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
 *   npm run bench -- --pg --processes 2   two server processes on them, each client on one in turn
 *   npm run bench -- --pg --server-only --processes 1,2,4   one, two and four processes in the same run, each with its cost per message
 *   npm run bench -- --compare ../old     also another checkout's server (its npm ci done), before this one's
 *   npm run bench -- --find-rate   also the highest offered rate (from --rate up, ×1.5 a step) with p99 under 100 ms
 *   npm run bench -- --connections 2000 --rate 1000 --senders 400 --window 4
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROTOCOL_VERSION } from '@app/protocol';
import pg from 'pg';
import { cpuPerMessage, PgWriteMeter } from './cost.ts';
import { MetricsCheck } from './metrics-check.ts';
import { hideNewerMigrations } from './migrations-hidden.ts';
import { CpuMeter, pidsNamed, settledRss } from './proc.ts';
import { type Cpu, printResults, type Result } from './report.ts';
import { describeMix } from './sealed-mix.ts';
import { seed } from './seed.ts';
import { startRelay, startServers, type Target } from './targets.ts';
import type { Reply } from './worker.ts';
import { deal, Workers } from './workers.ts';

const args = process.argv.slice(2);
const opt = (name: string, fallback: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const quick = args.includes('--quick');
/** --profile DIR: the server writes a V8 CPU profile there (open it in Chrome DevTools). */
const profileDir = args.includes('--profile') ? path.resolve(args[args.indexOf('--profile') + 1] ?? 'profiles') : null;
const serverOnly = args.includes('--server-only');
/** --compare DIR: another checkout of Parley, measured in the same run (its ratios against this one's). */
const compare = args.includes('--compare') ? path.resolve(args[args.indexOf('--compare') + 1] ?? '.') : null;
const usePg = args.includes('--pg');
/** Server processes (PostgreSQL + Redis only: SQLite is one process's file); a list ("1,2,4") measures each in turn. */
const PROCESSES = (args.includes('--processes') ? String(args[args.indexOf('--processes') + 1]) : '1')
  .split(',')
  .map(Number);
if (PROCESSES.some((n) => !(Number.isInteger(n) && n >= 1))) throw new Error('--processes takes counts: 2, or 1,2,4');
if (PROCESSES.some((n) => n > 1) && !usePg)
  throw new Error('--processes needs --pg: several processes share PostgreSQL and Redis');
const N = opt('--connections', quick ? 500 : 10_000);
const RATE = opt('--rate', quick ? 500 : 1000);
const LATENCY_SENDERS = Math.min(N, opt('--latency-senders', 200));
const SENDERS = Math.min(N, opt('--senders', quick ? 200 : 400));
const WINDOW = opt('--window', 4);
const WORKERS = opt('--workers', 2);
const FIND_RATE = args.includes('--find-rate');
/** What --find-rate calls sustained: p99 under this, and nearly every message delivered. */
const SUSTAINED_P99_MS = 100;
const PHASE_MS = quick ? 3_000 : 10_000;
const WARMUP_MS = quick ? 1_000 : 2_000;
const SECRET = 'bench-session-secret-0123456789abcdef0123';

const pgUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const redisUrl = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const tag = `${process.pid}_${Date.now().toString(36)}`;
const schema = `bench_${tag}`;

// ---- helpers -----------------------------------------------------------------------------

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- the target under test ---------------------------------------------------------------

/** A latency phase at `rate` msg/s: its sorted samples and the messages sent. */
async function latencyPhase(workers: Workers, rate: number) {
  const replies = await workers.all(() => ({
    cmd: 'latency',
    senders: Math.ceil(LATENCY_SENDERS / workers.size),
    ratePerSecond: rate / workers.size,
    durationMs: PHASE_MS,
  }));
  const samples = replies.flatMap((r) => (r.ok === 'latency' ? r.samples : [])).sort((a, b) => a - b);
  const sent = replies.reduce((n, r) => n + (r.ok === 'latency' ? r.sent : 0), 0);
  return { replies, samples, sent };
}

/**
 * The highest offered rate, from RATE up by half each step, at which p99 stays under
 * SUSTAINED_P99_MS and 99% of the messages arrive. Each step is a latency phase of its
 * own (and a phase of the /metrics check).
 */
async function findRate(workers: Workers, metrics: MetricsCheck | null, ackedTotal: (r: Reply[]) => number) {
  let best: { rate: number; p99: number } | null = null;
  for (let rate = RATE, step = 0; step < 10; step++, rate = Math.round(rate * 1.5)) {
    const { replies, samples, sent } = await latencyPhase(workers, rate);
    await metrics?.phase(`${rate} msg/s`, ackedTotal(replies));
    const p99 = percentile(samples, 0.99);
    console.log(`  offered ${rate} msg/s: p99 ${p99.toFixed(2)} ms, ${samples.length}/${sent} received`);
    if (!(p99 < SUSTAINED_P99_MS) || samples.length < sent * 0.99) break;
    best = { rate, p99 };
  }
  return best;
}

/**
 * Cores busy over a phase's measured part (from `afterMs`, PHASE_MS long): the target's
 * processes and, on PostgreSQL + Redis, every PostgreSQL process (one per connection) and
 * the Redis server. Filled in when that time is over.
 */
function meterCpu(target: Target, afterMs: number): Cpu {
  const services = usePg && !target.relay;
  const cpu: Cpu = { target: Number.NaN, pg: 0, redis: 0 };
  setTimeout(() => {
    const meters = {
      target: new CpuMeter(() => target.pids),
      pg: new CpuMeter(() => (services ? pidsNamed('postgres') : [])),
      redis: new CpuMeter(() => (services ? pidsNamed('redis-server') : [])),
    };
    const from = performance.now();
    setTimeout(() => {
      const ms = performance.now() - from;
      cpu.target = meters.target.used() / ms;
      cpu.pg = meters.pg.used() / ms;
      cpu.redis = meters.redis.used() / ms;
    }, PHASE_MS);
  }, afterMs);
  return cpu;
}

async function run(target: Target, users: { id: string; token: string }[]): Promise<Result> {
  const workers = new Workers(WORKERS);
  const shares = deal(users, workers.size, target.wsUrls);
  await sleep(1000);
  const rssBase = await settledRss(target.pids);
  const metrics = target.metrics ? await MetricsCheck.start(target.metrics) : null;
  const ackedTotal = (replies: Reply[]) =>
    replies.reduce((n, r) => n + (r.ok === 'latency' || r.ok === 'throughput' ? r.ackedTotal : 0), 0);
  const conn = await workers.all((i) => ({
    cmd: 'connect',
    clients: shares[i] ?? [],
    relay: target.relay,
    version: target.protocolVersion ?? PROTOCOL_VERSION,
  }));
  const connected = conn.reduce((n, r) => n + (r.ok === 'connected' ? r.connected : 0), 0);
  const failed = conn.reduce((n, r) => n + (r.ok === 'connected' ? r.failed : 0), 0);
  if (failed)
    console.log(
      `  ${failed} connections failed: ${conn.map((r) => (r.ok === 'connected' ? r.firstError : '')).join(' ')}`,
    );
  await sleep(1500);
  const rssConnected = await settledRss(target.pids);

  const writes = usePg && !target.relay ? await PgWriteMeter.start(pgUrl, schema) : null;
  const latCpu = meterCpu(target, 0);
  const { replies: lat, samples, sent } = await latencyPhase(workers, RATE);
  await metrics?.phase('latency', ackedTotal(lat));
  const written = writes ? await writes.stop(metrics?.phases.at(-1)?.stored ?? 0) : null;
  const sustained = FIND_RATE ? await findRate(workers, metrics, ackedTotal) : null;

  const cpu = meterCpu(target, WARMUP_MS);
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
    serverBusy: cpu.target,
    pgBusy: cpu.pg,
    redisBusy: cpu.redis,
    generatorBusy,
    latencyCpu: latCpu,
    perCpuSecond: ((delivered / PHASE_MS) * 1000) / (cpu.target + cpu.pg + cpu.redis),
    sendFrame: sum('sentFrameBytes') / sentMsgs,
    ct: sum('ctBytes') / sentMsgs,
    textChars: sum('textChars') / sentMsgs,
    textBytes: sum('textBytes') / sentMsgs,
    deliveryFrame: delivered ? sum('deliveredFrameBytes') / delivered : Number.NaN,
    metrics,
    sustained,
    cost: target.relay
      ? null
      : {
          delivered: samples.length,
          ...cpuPerMessage(latCpu, PHASE_MS, samples.length),
          ...(written ?? { walBytes: null, rows: null, rowsByTable: [] }),
        },
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
const users = await seed(N, { dataDir, pgUrl: usePg ? pgUrl : null, schema, tag, secret: SECRET });
console.log(
  `seeded ${N.toLocaleString('en-US')} users, sessions, keys and chat keys in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
);

const results: { target: Target; r: Result }[] = [];
const setup = { usePg, pgUrl, redisUrl, schema, tag, secret: SECRET, profileDir };
const parley = (processes: number) => () => startServers(processes, dataDir, setup);
// On SQLite the other checkout runs on a copy of the seeded database: neither server starts
// on a file the other has just written tens of thousands of messages to (which favoured
// whichever ran first).
const baselineDir = compare && !usePg ? `${dataDir}-baseline` : dataDir;
if (baselineDir !== dataDir) cpSync(dataDir, baselineDir, { recursive: true });
const baseline = (processes: number) => () =>
  startServers(processes, baselineDir, { ...setup, ...(compare ? { root: compare } : {}) });
/** The relay, then for each process count the other checkout's server (--compare) and this one's. */
const starts: { start: () => Promise<Target>; isBaseline: boolean }[] = [
  ...(serverOnly ? [] : [{ start: startRelay, isBaseline: false }]),
  ...PROCESSES.flatMap((n) => [
    ...(compare ? [{ start: baseline(n), isBaseline: true }] : []),
    { start: parley(n), isBaseline: false },
  ]),
];
for (const { start, isBaseline } of starts) {
  const dbAt = { dataDir: isBaseline ? baselineDir : dataDir, pgUrl: usePg ? pgUrl : null, schema };
  const restore = isBaseline && compare ? await hideNewerMigrations(dbAt, compare) : null;
  const target = await start();
  console.log(`running against ${target.name}...`);
  results.push({ target, r: await run(target, users) });
  await target.stop();
  await restore?.();
}
rmSync(dataDir, { recursive: true, force: true });
rmSync(baselineDir, { recursive: true, force: true });
if (usePg) {
  const c = new pg.Client({ connectionString: pgUrl });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await c.end();
}

printResults(results, {
  rate: RATE,
  connections: N,
  findRate: FIND_RATE,
  sustainedP99: SUSTAINED_P99_MS,
  compare: compare !== null,
});
const server = results.at(-1)?.r as Result;
// The server's counters must agree with what the bench saw acknowledged.
process.exit(server.metrics && !server.metrics.matches ? 1 : 0);

/**
 * The bench's report: each target's figures, ratios against the first target (the relay,
 * or with --server-only --compare the other checkout), what one message cost at the fixed
 * rate, and the goals met or missed.
 */
import type { Cost } from './cost.ts';
import type { MetricsCheck } from './metrics-check.ts';
import type { Target } from './targets.ts';

export interface Cpu {
  target: number;
  pg: number;
  redis: number;
}

export interface Result {
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
  /** CPU cores busy during the throughput phase: the target, PostgreSQL, Redis, and all load generators. */
  serverBusy: number;
  pgBusy: number;
  redisBusy: number;
  generatorBusy: number;
  /** Cores busy during the latency phase (whole phase): the target, PostgreSQL, Redis. */
  latencyCpu: Cpu;
  /** Messages delivered per CPU-second of the whole system under test (target, PostgreSQL, Redis). */
  perCpuSecond: number;
  /** Throughput phase, per message: the send frame's JSON, its ciphertext, the text it stands for, the delivery's JSON. */
  sendFrame: number;
  ct: number;
  textChars: number;
  textBytes: number;
  deliveryFrame: number;
  /** The server's /metrics message counter against the bench's count (null: the relay). */
  metrics: MetricsCheck | null;
  /** --find-rate: the highest offered rate sustained, with its p99 (null: not even --rate). */
  sustained: { rate: number; p99: number } | null;
  /** At the fixed rate (the latency phase): what one message cost (null: the relay). */
  cost: Cost | null;
}

export interface ReportOptions {
  rate: number;
  connections: number;
  findRate: boolean;
  sustainedP99: number;
  compare: boolean;
}

export const fmt = (v: number, digits = 0) =>
  Number.isFinite(v)
    ? v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : 'n/a';
const ratio = (v: number, b: number) => (Number.isFinite(v) && b > 0 ? `${(v / b).toFixed(2)}×` : 'n/a');

export function printResults(results: { target: Target; r: Result }[], o: ReportOptions): void {
  const base = results[0]?.r as Result;
  /** What the ratios are against: the relay, or (--server-only --compare) the other checkout. */
  const baseName = results[0]?.target.relay ? 'relay' : 'baseline';
  /** With --compare, this checkout against the other one as well. */
  const other = o.compare ? results.at(-2)?.r : undefined;
  /** "0.12× relay" (and "3.40× baseline" for this checkout's server, with --compare). */
  const vs = (r: Result, k: 'rssPerConn' | 'p99' | 'deliveredPerSec' | 'perCpuSecond') => {
    const parts = [`${ratio(r[k], base[k])} ${baseName}`];
    if (other && r === results.at(-1)?.r && other !== base) parts.push(`${ratio(r[k], other[k])} baseline`);
    return parts.join(', ');
  };
  console.log('');
  for (const { target, r } of results) printTarget(target, r, o, vs);
  const server = results.at(-1)?.r as Result;
  console.log('\nTargets (this machine, load generator included):');
  console.log(
    `  ≥ 10,000 durable msg/s                 ${fmt(server.deliveredPerSec)} ${server.deliveredPerSec >= 10_000 ? 'met' : 'missed'}`,
  );
  console.log(
    `  ≥ 0.5× the relay's rate                ${ratio(server.deliveredPerSec, base.deliveredPerSec)} ${server.deliveredPerSec >= base.deliveredPerSec / 2 ? 'met' : 'missed'}`,
  );
  console.log(
    `  p99 < 20 ms at ${o.rate} msg/s, ${fmt(o.connections)} clients  ${fmt(server.p99, 2)} ms ${server.p99 < 20 ? 'met' : 'missed'}`,
  );
  console.log(
    `  ≤ 12 KB per idle connection            ${fmt(server.rssPerConn / 1024, 1)} KB ${server.rssPerConn <= 12 * 1024 ? 'met' : 'missed'}`,
  );
  printCosts(results);
}

/**
 * What one message cost at the fixed rate, target by target, each against the first server
 * measured (with --processes 1,2,4: against one process; the goal is ≤ 1.15× its server CPU).
 */
function printCosts(results: { target: Target; r: Result }[]): void {
  const costed = results.filter((x): x is { target: Target; r: Result & { cost: Cost } } => x.r.cost !== null);
  const first = costed[0]?.r.cost;
  if (!first) return;
  console.log(
    '\nCost per message at the fixed rate (latency phase): CPU-µs per message delivered, WAL and rows per message stored',
  );
  const col = (v: number | null, b: number | null, digits = 0) =>
    v === null ? 'n/a' : `${fmt(v, digits)} (${b === null ? 'n/a' : ratio(v, b)})`;
  for (const { target, r } of costed) {
    const c = r.cost;
    console.log(`  ${target.name}`);
    console.log(
      `    server ${col(c.serverUs, first.serverUs)} µs, PostgreSQL ${col(c.pgUs, first.pgUs)} µs, Redis ${col(c.redisUs, first.redisUs)} µs, ` +
        `WAL ${col(c.walBytes, first.walBytes)} B, rows ${col(c.rows, first.rows, 2)}  (${fmt(c.delivered)} delivered)`,
    );
    if (c.rowsByTable.length)
      console.log(`    rows by table: ${c.rowsByTable.map(([t, n]) => `${t} ${fmt(n, 2)}`).join(', ')}`);
  }
  for (const { target, r } of costed.slice(1)) {
    if (!/\d+ processes/.test(target.name)) continue;
    const x = r.cost.serverUs / first.serverUs;
    console.log(
      `  server CPU per message ≤ 1.15× one process's: ${target.name.replace(/^.*, /, '')} ${x.toFixed(2)}× ${x <= 1.15 ? 'met' : 'missed'}`,
    );
  }
}

type Vs = (r: Result, k: 'rssPerConn' | 'p99' | 'deliveredPerSec' | 'perCpuSecond') => string;

function printTarget(target: Target, r: Result, o: ReportOptions, vs: Vs): void {
  console.log(`${target.name}`);
  console.log(`  connections held            ${fmt(r.connected)} (of ${fmt(o.connections)})`);
  console.log(
    `  server RSS per idle conn    ${fmt(r.rssPerConn / 1024, 1)} KB  (RSS ${fmt(r.rssBase / 2 ** 20, 0)} MB before clients)  ${vs(r, 'rssPerConn')}`,
  );
  console.log(
    `  latency @ ${o.rate} msg/s        p50 ${fmt(r.p50, 2)} ms  p95 ${fmt(r.p95, 2)} ms  p99 ${fmt(r.p99, 2)} ms  (${fmt(r.latencySamples)}/${fmt(r.latencySent)} received)  p99 ${vs(r, 'p99')}`,
  );
  if (o.findRate) {
    console.log(
      `  sustained (p99 < ${o.sustainedP99} ms)     ${r.sustained ? `${fmt(r.sustained.rate)} msg/s offered, p99 ${fmt(r.sustained.p99, 2)} ms` : `not even ${o.rate} msg/s`}`,
    );
  }
  const lc = r.latencyCpu;
  console.log(
    `  CPU during latency          target ${fmt(lc.target * 100)}% of a core${lc.pg || lc.redis ? `, PostgreSQL ${fmt(lc.pg * 100)}%, Redis ${fmt(lc.redis * 100)}%` : ''}`,
  );
  console.log(
    `  durable throughput          ${fmt(r.deliveredPerSec)} msg/s delivered, ${fmt(r.ackedPerSec)} acknowledged  ${vs(r, 'deliveredPerSec')}`,
  );
  console.log(
    `  CPU during throughput       target ${fmt(r.serverBusy * 100)}% of a core${r.pgBusy || r.redisBusy ? `, PostgreSQL ${fmt(r.pgBusy * 100)}%, Redis ${fmt(r.redisBusy * 100)}%` : ''}, load generators ${fmt(r.generatorBusy * 100)}%`,
  );
  console.log(
    `  delivered per CPU-second    ${fmt(r.perCpuSecond)} (target${r.pgBusy || r.redisBusy ? ' + PostgreSQL + Redis' : ''})  ${vs(r, 'perCpuSecond')}`,
  );
  console.log(
    `  sent per message            text ${fmt(r.textChars)} chars (${fmt(r.textBytes)} B UTF-8) → ct ${fmt(r.ct)} chars; ` +
      `JSON frames: send ${fmt(r.sendFrame)} B, delivery ${fmt(r.deliveryFrame)} B`,
  );
  for (const phase of ['latency', 'throughput']) {
    const said = r.metrics?.server(phase);
    if (said) console.log(`  ${`server, ${phase}`.padEnd(28)}${said}`);
  }
  if (r.metrics) console.log(`  /metrics                    ${r.metrics.describe((v) => fmt(v))}`);
  if (r.errors) console.log(`  errors                      ${r.errors} (first: ${r.firstError})`);
}

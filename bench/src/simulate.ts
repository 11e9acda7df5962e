/**
 * `npm run bench:simulate`: fan-out at a million connected users across N server processes
 * and S database shards, on paper. Deterministic arithmetic, no randomness: every load is
 * the mean of random placement (a user on any process, a user's rows on any shard), driven
 * by per-message costs the bench measures. For each N and S it prints each resource's load
 * as a share of its capacity, the resource that saturates first, and at how many users
 * online (and messages a second) it does. The model: docs/scaling.md, "Past one database".
 *
 *   npm run bench:simulate
 *   npm run bench:simulate -- --users 3000000 --processes 8,32 --shards 1,4 --pg-cores 32
 *   npm run bench:simulate -- --server-us 420 --pg-us 310 --two-shard-pg-us 250
 *
 * Every number of MEASURED and ASSUMED below is an option in kebab case (serverUs: --server-us).
 */

/**
 * Per-message costs, from `npm run bench -- --pg --processes N` (bench/src/cost.ts prints them
 * per message delivered, at a fixed offered rate). The values here are placeholders until
 * the engineer copies in a run's figures; each comment says which figure goes there.
 */
export const MEASURED = {
  /** Server CPU-µs per message (cost.ts `serverUs`, --processes 1). Placeholder: README, ~65% of a core at 1,000 msg/s. */
  serverUs: 650,
  /** Extra server CPU-µs when the two people are on different processes: (serverUs at --processes 2 − at 1) / (1 − 1/2). Placeholder. */
  serverCrossUs: 100,
  /** PostgreSQL CPU-µs per message (cost.ts `pgUs`). Placeholder: README, 55% of a core at 1,000 msg/s, pipelined. */
  pgUs: 550,
  /** Redis CPU-µs per message (cost.ts `redisUs`, --processes 2): both log entries published, and delivered. Placeholder. */
  redisUs: 40,
  /** WAL bytes per message stored (cost.ts `walBytes`). Placeholder. */
  walBytes: 3000,
  /** Rows written per message (cost.ts `rows`). From the code: 1 message, 2 summaries, 2 users' seqs, 2 log rows. */
  rows: 7,
  /** Server RSS bytes per idle socket (bench: "server RSS per idle conn"). README, SQLite run: 5.9 KB. */
  rssPerSocket: 5.9 * 1024,
  /** Server CPU-µs per socket per heartbeat: ping, pong, its share of the session check. Placeholder (profile Realtime.beat). */
  heartbeatUs: 20,
  /** PostgreSQL CPU-µs per socket per heartbeat: its share of liveSessions (one query a 200-socket slice). Placeholder. */
  heartbeatPgUs: 2,
};
export type Costs = typeof MEASURED;

/** What the bench cannot measure: the traffic mix, the two-shard transaction, the machines. */
export const ASSUMED = {
  usersOnline: 1_000_000,
  /** Sockets per online user (tabs and devices). */
  socketsPerUser: 1,
  /** Share of online users in a conversation, and their messages an hour; the rest send `idlePerHour`. */
  activeShare: 0.1,
  activePerHour: 60,
  idlePerHour: 2,
  /** Receipt transactions per message (delivered, read), each costing `receiptCost` of a send. Bench clients send none. */
  receiptsPerMessage: 1,
  receiptCost: 0.5,
  /** Per shard beyond the first a transaction touches: PostgreSQL CPU-µs (its statements, PREPARE, COMMIT PREPARED), WAL bytes. */
  twoShardPgUs: 150,
  twoShardWalBytes: 400,
  /** Once per transaction on more than one shard: the extra round trip of PREPARE TRANSACTION and its sync, ms. */
  twoShardMs: 2,
  /** The server's heartbeat (realtime.ts HEARTBEAT_MS). */
  heartbeatMs: 30_000,
  /** Capacities: a server process is one core; its memory; a PostgreSQL shard's cores and WAL bytes a second; Redis one core a shard. */
  processMemory: 2 * 2 ** 30,
  processBaseRss: 100 * 2 ** 20,
  pgCores: 8,
  walPerSecond: 100 * 2 ** 20,
};
export type Assumed = typeof ASSUMED;

/**
 * Where a chat's rows (messages, chat keys, reactions) live: with the chat's lower user id
 * (colocated with one of its two people: a send touches one or two shards), or hashed on
 * chat_id (one to three shards).
 */
export type ChatPlacement = 'low-user' | 'chat-hash';

export interface Shape {
  processes: number;
  shards: number;
  redisShards: number;
  chatPlacement: ChatPlacement;
}

export type Resource = 'server CPU' | 'server memory' | 'PostgreSQL CPU' | 'WAL' | 'Redis CPU';

/** One resource's load at the users online: `perUser` × users + `fixed`, against `capacity` (same units). */
export interface Load {
  resource: Resource;
  perUser: number;
  fixed: number;
  capacity: number;
  /** Load at the model's users online, % of capacity. */
  pct: number;
  /** Users online at which it reaches 100% (Infinity: never). */
  saturatesAt: number;
}

export interface Outcome {
  shape: Shape;
  messagesPerSecond: number;
  crossProcess: number;
  multiShard: number;
  /** Mean latency a send gains from two-shard commits, ms. */
  addedMs: number;
  rowsPerShardPerSecond: number;
  loads: Load[];
  first: Load;
}

/** Messages a second one online user sends, on average. */
export function perUserRate(a: Assumed): number {
  return (a.activeShare * a.activePerHour + (1 - a.activeShare) * a.idlePerHour) / 3600;
}

/** Share of messages whose two people are on different processes (each on any of `n`). */
export function crossProcessShare(n: number): number {
  return n <= 1 ? 0 : 1 - 1 / n;
}

/**
 * Shards a send's transaction touches, of `s`: its two people's (user-sharded rows) and the
 * chat's. Colocated with the lower user, that is 2 independent picks; hashed on chat_id, 3.
 * `multi`: share touching more than one; `extra`: mean shards beyond the first.
 */
export function shardSpread(s: number, placement: ChatPlacement): { multi: number; extra: number } {
  if (s <= 1) return { multi: 0, extra: 0 };
  const picks = placement === 'low-user' ? 2 : 3;
  const distinct = s * (1 - (1 - 1 / s) ** picks);
  return { multi: 1 - s ** (1 - picks), extra: distinct - 1 };
}

function load(resource: Resource, perUser: number, fixed: number, capacity: number, users: number): Load {
  const saturatesAt = perUser > 0 ? Math.max(0, (capacity - fixed) / perUser) : Number.POSITIVE_INFINITY;
  return { resource, perUser, fixed, capacity, pct: ((perUser * users + fixed) / capacity) * 100, saturatesAt };
}

/** Every resource's load for one shape: per server process, per database shard, per Redis shard. */
export function simulate(shape: Shape, c: Costs = MEASURED, a: Assumed = ASSUMED): Outcome {
  const { processes: n, shards: s, redisShards: r } = shape;
  const rate = perUserRate(a);
  // A receipt is a transaction like a send, at `receiptCost` of its costs, crossing alike.
  const tx = 1 + a.receiptsPerMessage * a.receiptCost;
  const cross = crossProcessShare(n);
  const spread = shardSpread(s, shape.chatPlacement);
  const beats = 1000 / a.heartbeatMs;
  const sockets = a.socketsPerUser;
  const serverUs = rate * tx * (c.serverUs + cross * c.serverCrossUs) + sockets * beats * c.heartbeatUs;
  const pgUs = rate * tx * (c.pgUs + spread.extra * a.twoShardPgUs) + sockets * beats * c.heartbeatPgUs;
  const wal = rate * tx * (c.walBytes + spread.extra * a.twoShardWalBytes);
  const u = a.usersOnline;
  const loads = [
    load('server CPU', serverUs / n, 0, 1e6, u),
    load('server memory', (sockets * c.rssPerSocket) / n, a.processBaseRss, a.processMemory, u),
    load('PostgreSQL CPU', pgUs / s, 0, a.pgCores * 1e6, u),
    load('WAL', wal / s, 0, a.walPerSecond, u),
    load('Redis CPU', (rate * tx * c.redisUs) / r, 0, 1e6, u),
  ];
  const first = loads.reduce((m, l) => (l.saturatesAt < m.saturatesAt ? l : m));
  return {
    shape,
    messagesPerSecond: rate * u,
    crossProcess: cross,
    multiShard: spread.multi,
    addedMs: spread.multi * a.twoShardMs,
    rowsPerShardPerSecond: (rate * u * tx * c.rows) / s,
    loads,
    first,
  };
}

/** Every shape of the grid: each process count with each shard count. */
export function grid(
  processes: readonly number[],
  shards: readonly number[],
  options: { redisShards?: number; chatPlacement?: ChatPlacement } = {},
  c: Costs = MEASURED,
  a: Assumed = ASSUMED,
): Outcome[] {
  return processes.flatMap((n) =>
    shards.map((s) =>
      simulate(
        {
          processes: n,
          shards: s,
          redisShards: options.redisShards ?? s,
          chatPlacement: options.chatPlacement ?? 'low-user',
        },
        c,
        a,
      ),
    ),
  );
}

// ---- the command line ----------------------------------------------------------------------

const kebab = (key: string) => `--${key.replace(/[A-Z]/g, (ch) => `-${ch.toLowerCase()}`)}`;

/** Sets the MEASURED or ASSUMED number `flag` names (`--server-us`: serverUs); false when it names none. */
function setNumber(costs: Costs, assumed: Assumed, flag: string, value: number): boolean {
  const costKey = Object.keys(costs).find((k) => kebab(k) === flag) as keyof Costs | undefined;
  const assumedKey = Object.keys(assumed).find((k) => kebab(k) === flag) as keyof Assumed | undefined;
  if (costKey) costs[costKey] = value;
  else if (assumedKey) assumed[assumedKey] = value;
  return costKey !== undefined || assumedKey !== undefined;
}

/** Options over the defaults: `--server-us 700` sets MEASURED.serverUs, `--pg-cores 32` ASSUMED.pgCores. */
export function parseArgs(argv: readonly string[]) {
  const costs: Costs = { ...MEASURED };
  const assumed: Assumed = { ...ASSUMED };
  let processes = [4, 16, 64];
  let shards = [1, 2, 4, 8];
  let redisShards: number | undefined;
  let chatPlacement: ChatPlacement = 'low-user';
  const list = (v: string) => v.split(',').map(Number);
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i] as string;
    const value = argv[i + 1];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === '--processes') processes = list(value);
    else if (flag === '--shards') shards = list(value);
    else if (flag === '--users') assumed.usersOnline = Number(value);
    else if (flag === '--redis-shards') redisShards = Number(value);
    else if (flag === '--chat-placement') {
      if (value !== 'low-user' && value !== 'chat-hash') throw new Error('--chat-placement is low-user or chat-hash');
      chatPlacement = value;
    } else if (!setNumber(costs, assumed, flag, Number(value))) throw new Error(`unknown option ${flag}`);
  }
  const numbers = [...processes, ...shards, ...Object.values(costs), ...Object.values(assumed), redisShards ?? 1];
  if (
    numbers.some((v) => !Number.isFinite(v) || v < 0) ||
    [...processes, ...shards, redisShards ?? 1].some((v) => v < 1)
  ) {
    throw new Error('options take non-negative numbers; --processes, --shards and --redis-shards at least 1');
  }
  return { costs, assumed, processes, shards, redisShards, chatPlacement };
}

const SHORT: Record<Resource, string> = {
  'server CPU': 'server',
  'server memory': 'memory',
  'PostgreSQL CPU': 'PG CPU',
  WAL: 'WAL',
  'Redis CPU': 'Redis',
};

const fmt = (v: number, digits = 0) =>
  Number.isFinite(v)
    ? v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '∞';

/** The report: the inputs, then a row per shape. */
export function report(args: ReturnType<typeof parseArgs>): string[] {
  const { costs, assumed, processes, shards, redisShards, chatPlacement } = args;
  const rows = grid(processes, shards, { chatPlacement, ...(redisShards ? { redisShards } : {}) }, costs, assumed);
  const out = [
    `Fan-out at ${fmt(assumed.usersOnline)} users online, ${fmt(perUserRate(assumed) * 3600, 1)} messages an hour each ` +
      `(${fmt(rows[0]?.messagesPerSecond ?? 0)} msg/s), ${assumed.receiptsPerMessage} receipt a message at ${assumed.receiptCost} of a send`,
    `per message: server ${costs.serverUs} µs (+${costs.serverCrossUs} across processes), PostgreSQL ${costs.pgUs} µs, ` +
      `Redis ${costs.redisUs} µs, WAL ${fmt(costs.walBytes)} B, ${costs.rows} rows; ${fmt(costs.rssPerSocket / 1024, 1)} KB a socket`,
    `per shard beyond the first: +${assumed.twoShardPgUs} µs PostgreSQL, +${assumed.twoShardWalBytes} B WAL, +${assumed.twoShardMs} ms; ` +
      `chats placed ${chatPlacement}; PostgreSQL ${assumed.pgCores} cores a shard; Redis shards ${redisShards ?? '= database shards'}`,
    'Load at that many users, % of capacity (server: per process; PG and WAL: per database shard; Redis: per Redis shard)',
    '',
    `${'N'.padStart(4)} ${'S'.padStart(3)}  cross-proc  2-shard  +ms   server  memory  PG CPU     WAL   Redis  first to saturate    at users      at msg/s`,
  ];
  for (const o of rows) {
    const pct = (r: Resource) => `${fmt(o.loads.find((l) => l.resource === r)?.pct ?? 0)}%`.padStart(7);
    out.push(
      `${String(o.shape.processes).padStart(4)} ${String(o.shape.shards).padStart(3)}  ` +
        `${`${fmt(o.crossProcess * 100)}%`.padStart(10)}  ${`${fmt(o.multiShard * 100)}%`.padStart(7)}  ${fmt(o.addedMs, 1).padStart(4)}` +
        (['server CPU', 'server memory', 'PostgreSQL CPU', 'WAL', 'Redis CPU'] as const).map(pct).join(' ') +
        `  ${SHORT[o.first.resource].padEnd(17)}  ${fmt(o.first.saturatesAt).padStart(10)}  ` +
        `${fmt(o.first.saturatesAt * perUserRate(assumed)).padStart(12)}`,
    );
  }
  return out;
}

if (import.meta.main) {
  for (const line of report(parseArgs(process.argv.slice(2)))) console.log(line);
}

/**
 * The targets the benchmark measures: the real server (started through the server's own
 * spawn helper) and the bare relay it is compared with.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { SERVER_NODE_FLAGS, scrapeMetrics } from '@app/server';
import { spawnServer, stopProcess } from '@app/server/spawn';

export interface BenchSetup {
  usePg: boolean;
  pgUrl: string;
  redisUrl: string;
  /** The PostgreSQL schema (and Redis prefix) of this run. */
  schema: string;
  tag: string;
  secret: string;
  profileDir: string | null;
  /** Another checkout whose server to run instead of this one's (see --compare). */
  root?: string;
}

export interface Target {
  name: string;
  /** Its processes, and the WebSocket URL of each. */
  pids: number[];
  wsUrls: string[];
  relay: boolean;
  /** The protocol version its hello must name (another checkout's may be older). */
  protocolVersion?: number;
  /** Each process's /metrics text (Prometheus), scraped as an operator's Prometheus does; the relay has none. */
  metrics?: () => Promise<string[]>;
  stop(): Promise<void>;
}

/** The PROTOCOL_VERSION of the checkout at `root` (read from its source: its modules are not this one's). */
function protocolVersionAt(root: string): number {
  const source = readFileSync(path.join(root, 'packages/protocol/src/constants.ts'), 'utf8');
  const m = /export const PROTOCOL_VERSION = (\d+);/.exec(source);
  if (!m) throw new Error(`no PROTOCOL_VERSION in ${root}`);
  return Number(m[1]);
}

/** Starts a child and resolves with the first stdout line `pick` accepts. */
function startChild(
  command: string,
  childArgs: string[],
  env: NodeJS.ProcessEnv,
  pick: (line: string) => string | null,
): Promise<{ child: ChildProcess; value: string }> {
  const child = spawn(command, childArgs, { env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${childArgs.join(' ')} did not start`)), 30_000);
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const v = pick(line);
      if (v !== null) {
        clearTimeout(timer);
        resolve({ child, value: v });
      }
    });
    child.on('exit', (code) => reject(new Error(`${childArgs.join(' ')} exited (${code})`)));
  });
}

/**
 * Parley on this machine's SQLite file in `dataDir`, or `processes` server processes on
 * PostgreSQL + Redis (see BenchSetup), as several processes behind a proxy would run.
 */
export async function startServers(processes: number, dataDir: string, b: BenchSetup): Promise<Target> {
  const started = await Promise.all(Array.from({ length: processes }, () => startServer(dataDir, b)));
  const one = started[0] as Target;
  if (started.length === 1) return one;
  return {
    name: `${one.name}, ${processes} processes`,
    ...(one.protocolVersion ? { protocolVersion: one.protocolVersion } : {}),
    pids: started.flatMap((t) => t.pids),
    wsUrls: started.flatMap((t) => t.wsUrls),
    relay: false,
    async metrics() {
      return (await Promise.all(started.map((t) => (t.metrics as () => Promise<string[]>)()))).flat();
    },
    async stop() {
      await Promise.all(started.map((t) => t.stop()));
    },
  };
}

async function startServer(dataDir: string, b: BenchSetup): Promise<Target> {
  const { usePg, pgUrl, redisUrl, schema, tag, secret, profileDir } = b;
  const metricsToken = randomBytes(18).toString('base64url');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    WEB_DIST: '',
    LOG_LEVEL: 'info',
    SESSION_SECRET: secret,
    // The throughput phase drives each socket (and user) well past the default 20 frames/s.
    WS_FRAMES_PER_SECOND: '100000',
    WS_BURST: '100000',
    RATE_LIMIT_USER_WRITES_PER_SECOND: '100000',
    RATE_LIMIT_USER_WRITE_BURST: '100000',
    METRICS_TOKEN: metricsToken,
    ...(usePg
      ? { DATABASE_URL: pgUrl, DATABASE_SCHEMA: schema, REDIS_URL: redisUrl, REDIS_PREFIX: `bench_${tag}` }
      : {}),
  };
  // No PUBLIC_URL: the port is chosen at start, and clients send the server's own origin.
  for (const k of ['SMTP_URL', 'PUBLIC_URL', ...(usePg ? [] : ['DATABASE_URL', 'REDIS_URL'])]) delete env[k];
  const nodeArgs = [...SERVER_NODE_FLAGS, ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])];
  const { child, url } = await spawnServer({ env, nodeArgs, ...(b.root ? { root: b.root } : {}) });
  return {
    name: `Parley${b.root ? ` at ${b.root}` : ''} (${usePg ? 'PostgreSQL + Redis' : 'embedded SQLite'})`,
    ...(b.root ? { protocolVersion: protocolVersionAt(b.root) } : {}),
    pids: [child.pid as number],
    wsUrls: [`${url.replace('http', 'ws')}/ws`],
    relay: false,
    async metrics() {
      const r = await scrapeMetrics(url, metricsToken);
      if (r.status !== 200) throw new Error(`/metrics answered ${r.status}`);
      return [r.text];
    },
    stop: () => stopProcess(child),
  };
}

/** The baseline: a bare ws relay that stores nothing. */
export async function startRelay(): Promise<Target> {
  const { child, value } = await startChild(
    process.execPath,
    ['--expose-gc', path.join(import.meta.dirname, 'relay.ts')],
    process.env,
    (line) => {
      try {
        return String((JSON.parse(line) as { port: number }).port);
      } catch {
        return null;
      }
    },
  );
  return {
    name: 'bare ws relay (no storage)',
    pids: [child.pid as number],
    wsUrls: [`ws://127.0.0.1:${value}/ws`],
    relay: true,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

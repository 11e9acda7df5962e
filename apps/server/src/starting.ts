/**
 * Starting while PostgreSQL or Redis cannot be reached (a host that boots before its
 * database, a restart of the network): the process does not crash. It logs one line per
 * attempt naming what it waits for, tries again with a growing pause (1 s, 2 s, 4 s… at
 * most 30 s), and meanwhile answers on its port as a starting server: /livez 200 (it is
 * alive: do not restart it), /readyz and /healthz 503 (send it nothing yet), anything else
 * 503 with Retry-After. Once both answer, the real server is built (main.ts).
 */
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { Config } from './config.ts';
import { VERSION } from './version.ts';

const PAUSE_MAX_MS = 30_000;
const CONNECT_TIMEOUT_MS = 5_000;

/** A dependency that does not answer: what it is and where, and why. */
async function unreachable(config: Config): Promise<{ what: string; error: string } | null> {
  if (config.databaseUrl) {
    const u = new URL(config.databaseUrl);
    const c = new pg.Client({ connectionString: config.databaseUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    c.on('error', () => {});
    try {
      await c.connect();
    } catch (e) {
      return { what: `PostgreSQL at ${u.host}`, error: e instanceof Error ? e.message : String(e) };
    } finally {
      await c.end().catch(() => {});
    }
  }
  if (config.redisUrl) {
    const u = new URL(config.redisUrl);
    const r = new Redis(config.redisUrl, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      connectTimeout: CONNECT_TIMEOUT_MS,
    });
    r.on('error', () => {});
    try {
      await r.connect();
      await r.ping();
    } catch (e) {
      return { what: `Redis at ${u.host}`, error: e instanceof Error ? e.message : String(e) };
    } finally {
      r.disconnect();
    }
  }
  return null;
}

/** One JSON log line, as the server's own (pino's shape). */
function log(level: number, fields: Record<string, unknown>, msg: string): void {
  process.stdout.write(`${JSON.stringify({ level, time: Date.now(), pid: process.pid, ...fields, msg })}\n`);
}

/** Answers as a starting server on the configured port until closed. */
async function holdPort(config: Config, waiting: () => string): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(JSON.stringify(body));
    };
    if (path === '/livez') return json(200, { ok: true, starting: true, version: VERSION });
    if (path === '/readyz' || path === '/healthz') {
      return json(503, { ok: false, starting: true, waitingFor: waiting(), version: VERSION });
    }
    json(
      503,
      { error: 'unavailable', message: 'Parley is starting. Please try again in a moment.' },
      { 'retry-after': '5' },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  return server;
}

/**
 * Resolves once PostgreSQL and Redis (those configured) answer. While they do not, the port
 * is held by a starting server, closed before this resolves.
 */
export async function waitForDependencies(config: Config): Promise<void> {
  let missing = await unreachable(config);
  if (!missing) return;
  let waitingFor = missing.what;
  const holder = await holdPort(config, () => waitingFor);
  try {
    for (let pause = 1_000; missing; pause = Math.min(pause * 2, PAUSE_MAX_MS)) {
      waitingFor = missing.what;
      log(40, { err: missing.error }, `${missing.what} cannot be reached; trying again in ${pause / 1000} s`);
      await sleep(pause);
      missing = await unreachable(config);
    }
  } finally {
    holder.closeAllConnections();
    await new Promise((resolve) => holder.close(resolve));
  }
  log(30, {}, `${waitingFor} answers: starting`);
}

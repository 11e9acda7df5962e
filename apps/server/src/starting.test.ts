/**
 * A server started while PostgreSQL and Redis cannot be reached (each behind a proxy that
 * refuses connections): it stays up, says in one line what it waits for, answers /livez 200
 * and /readyz 503, and becomes ready once they come back (PostgreSQL first, then Redis).
 * Runs when TEST_DATABASE_URL and TEST_REDIS_URL are set.
 */
import { afterAll, expect, it } from 'vitest';
import { freePort, spawnServer } from './spawn-server.ts';
import { dropPgSchema, SCALE_OUT_SKIP } from './test/harness.ts';
import { TcpProxy } from './test/tcp-proxy.ts';

if (SCALE_OUT_SKIP) console.warn(`starting.test.ts skipped: ${SCALE_OUT_SKIP}`);

const pgUrl = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://x@127.0.0.1:5432/test');
const redisUrl = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
const schema = `t_starting_${process.pid}`;
const proxies = [
  new TcpProxy({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) }),
  new TcpProxy({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379) }),
];
afterAll(async () => {
  for (const p of proxies) await p.close();
  if (!SCALE_OUT_SKIP) await dropPgSchema(pgUrl.href, schema);
});

async function until(f: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    if (await f().catch(() => false)) return;
  }
  throw new Error(`timed out waiting for ${what}`);
}

it.skipIf(Boolean(SCALE_OUT_SKIP))(
  'waits for PostgreSQL and Redis, alive and not ready, then starts',
  async () => {
    const [pgProxy, redisProxy] = proxies as [TcpProxy, TcpProxy];
    // Ports reserved, then refused.
    for (const p of proxies) {
      await p.start();
      await p.cut();
    }
    const db = new URL(pgUrl.href);
    db.host = `127.0.0.1:${pgProxy.port}`;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const spawned = spawnServer({
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: db.href,
        DATABASE_SCHEMA: schema,
        REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`,
        REDIS_PREFIX: `starting_${process.pid}`,
        WEB_DIST: '',
        // 'Parley is ready' is an info line.
        LOG_LEVEL: 'info',
      },
      timeoutMs: 60_000,
    });
    const readyz = async () => {
      const r = await fetch(`${base}/readyz`);
      return { status: r.status, body: (await r.json()) as { waitingFor?: string } };
    };
    await until(async () => (await fetch(`${base}/livez`)).status === 200, 'the starting server');
    expect(await readyz()).toMatchObject({
      status: 503,
      body: { waitingFor: `PostgreSQL at 127.0.0.1:${pgProxy.port}` },
    });
    expect((await fetch(`${base}/api/auth/session`)).status).toBe(503);

    await pgProxy.start();
    await until(async () => (await readyz()).body.waitingFor === `Redis at 127.0.0.1:${redisProxy.port}`, 'Redis next');
    await redisProxy.start();
    const server = await spawned;
    try {
      expect((await readyz()).status).toBe(200);
      // One line per attempt, naming what it waits for; no stack trace.
      const out = server.output();
      expect(out).toMatch(
        new RegExp(`PostgreSQL at 127\\.0\\.0\\.1:${pgProxy.port} cannot be reached; trying again in 1 s`),
      );
      expect(out).toMatch(/Redis at 127\.0\.0\.1:\d+ cannot be reached; trying again in \d+ s/);
      expect(out).not.toMatch(/\n\s+at /);
    } finally {
      await server.stop();
    }
  },
  90_000,
);

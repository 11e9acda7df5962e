/**
 * Health for orchestrators and load balancers:
 * - GET /livez: the process answers (restart it when this fails);
 * - GET /readyz: it can serve — the database takes a write, Redis answers (when configured),
 *   every migration has run — and it is not draining (send it traffic only while this is 200).
 * Both carry the version. /healthz stays as the readiness check earlier releases had.
 * On SIGTERM the process drains: /readyz answers 503 while it still serves, so a balancer
 * stops sending new clients before the server stops accepting them (see main.ts).
 * What is checked is given by the server's composition (app.ts).
 */
import type { FastifyInstance } from 'fastify';

export interface Health {
  /** From now on /readyz answers 503 (a graceful shutdown has begun). */
  drain(): void;
}

/** What the answers name, and the readiness checks: each throws when what it checks fails. */
export interface HealthSource {
  /** The release (version.ts). */
  version: string;
  /** The database engine. */
  engine: string;
  /** This process among several (its id in Redis), or null. */
  instance: string | null;
  /** How mail leaves. */
  mail: string;
  /** The database takes a write (not only reads). */
  database(): Promise<unknown>;
  /** Every migration has run. */
  migrations(): Promise<unknown>;
  /** Redis answers; null without Redis. */
  redis: (() => Promise<unknown>) | null;
}

interface Check {
  ok: boolean;
  error?: string;
}

async function check(run: () => Promise<unknown>): Promise<Check> {
  try {
    await run();
    return { ok: true };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

export function registerHealth(app: FastifyInstance, s: HealthSource): Health {
  let draining = false;
  const base = () => ({ version: s.version, engine: s.engine, ...(s.instance ? { instance: s.instance } : {}) });

  app.get('/livez', async () => ({ ok: true, ...base() }));

  const ready = async (_req: unknown, reply: { code(n: number): unknown }) => {
    const [database, migrations, redis] = await Promise.all([
      check(s.database),
      check(s.migrations),
      s.redis ? check(s.redis) : Promise.resolve(null),
    ]);
    const checks = { database, migrations, ...(redis ? { redis } : {}) };
    const ok = !draining && Object.values(checks).every((c) => c.ok);
    if (!ok) reply.code(503);
    return { ok, ...(draining ? { draining: true } : {}), ...base(), mail: s.mail, checks };
  };
  app.get('/readyz', ready);
  app.get('/healthz', ready);

  return {
    drain: () => {
      draining = true;
    },
  };
}

/**
 * Health for orchestrators and load balancers:
 * - GET /livez: the process answers (restart it when this fails);
 * - GET /readyz: it can serve — the database takes a write, Redis answers (when configured),
 *   every migration has run — and it is not draining (send it traffic only while this is 200).
 * Both carry the version. /healthz stays as the readiness check earlier releases had.
 * On SIGTERM the process drains: /readyz answers 503 while it still serves, so a balancer
 * stops sending new clients before the server stops accepting them (see main.ts).
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';
import { pendingMigrations } from '../storage/db.ts';

export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The setting each readiness check writes (the database must take writes, not only reads). */
const PROBE_KEY = 'internal:readyz';

export interface Health {
  /** From now on /readyz answers 503 (a graceful shutdown has begun). */
  drain(): void;
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

export function registerHealth(app: FastifyInstance, s: Services): Health {
  let draining = false;
  const base = () => ({ version: VERSION, engine: s.db.engine, ...(s.instance ? { instance: s.instance } : {}) });

  app.get('/livez', async () => ({ ok: true, ...base() }));

  const ready = async (_req: unknown, reply: { code(n: number): unknown }) => {
    const [database, migrations, redis] = await Promise.all([
      check(() =>
        s.db.kysely
          .insertInto('settings')
          .values({ key: PROBE_KEY, value: String(Date.now()) })
          .onConflict((oc) => oc.column('key').doUpdateSet({ value: (eb) => eb.ref('excluded.value') }))
          .execute(),
      ),
      check(async () => {
        const pending = await pendingMigrations(s.db);
        if (pending.length > 0) throw new Error(`not applied: ${pending.join(', ')}`);
      }),
      s.redis ? check(() => (s.redis as NonNullable<typeof s.redis>).ping()) : Promise.resolve(null),
    ]);
    const checks = { database, migrations, ...(redis ? { redis } : {}) };
    const ok = !draining && Object.values(checks).every((c) => c.ok);
    if (!ok) reply.code(503);
    return { ok, ...(draining ? { draining: true } : {}), ...base(), mail: s.mailer.mode, checks };
  };
  app.get('/readyz', ready);
  app.get('/healthz', ready);

  return {
    drain: () => {
      draining = true;
    },
  };
}

/**
 * /livez and /readyz: on both engines (and with Redis when TEST_REDIS_URL is set), what each
 * says and when; a database that no longer takes writes makes the server not ready; and a
 * real process told to stop (SIGTERM) reports not ready while it still serves, then exits.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnServer } from '../spawn-server.ts';
import { ENGINES, startEngineServer, type TestServer } from '../test/harness.ts';
import { VERSION } from '../version.ts';

const redisUrl = process.env.TEST_REDIS_URL ?? '';

describe.each(ENGINES)('health on $name', ({ url }) => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it('/livez and /readyz answer 200 with the version and what was checked', async () => {
    const t = await startEngineServer(url, 'health');
    servers.push(t);
    const live = await t.client().get('/livez');
    expect(live.status).toBe(200);
    expect(live.body).toMatchObject({ ok: true, version: VERSION, engine: url ? 'postgres' : 'sqlite' });
    const ready = await t.client().get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      ok: true,
      version: VERSION,
      checks: { database: { ok: true }, migrations: { ok: true } },
    });
    expect(ready.body.checks.redis).toBeUndefined();
    expect((await t.client().get('/healthz')).body).toMatchObject({ ok: true });
  });

  it.skipIf(!redisUrl)('with Redis, /readyz checks it too', async () => {
    const t = await startEngineServer(url, 'healthr', { env: { REDIS_URL: redisUrl, REDIS_PREFIX: `h${Date.now()}` } });
    servers.push(t);
    const ready = await t.client().get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.redis).toEqual({ ok: true });
    expect(ready.body.instance).toEqual(expect.any(String));
  });

  it('a database that refuses writes, or a drain, makes it not ready while it stays live', async () => {
    const t = await startEngineServer(url, 'healthw');
    servers.push(t);
    const db = t.server.ctx.store.db;
    // SQLite: its one connection made read-only. PostgreSQL (a pool): writes to the table the
    // check writes refused, as a read-only replica or a full disk would refuse them.
    const refuse = url
      ? [
          sql`CREATE FUNCTION refuse_writes() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'read-only'; END $$ LANGUAGE plpgsql`,
          sql`CREATE TRIGGER refuse BEFORE INSERT OR UPDATE ON settings FOR EACH ROW EXECUTE FUNCTION refuse_writes()`,
        ]
      : [sql`PRAGMA query_only = ON`];
    for (const q of refuse) await q.execute(db);
    const refused = await t.client().get('/readyz');
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ ok: false, checks: { database: { ok: false } } });
    expect(refused.body.checks.database.error).toEqual(expect.any(String));
    expect((await t.client().get('/livez')).status).toBe(200);
    await (url ? sql`DROP TRIGGER refuse ON settings` : sql`PRAGMA query_only = OFF`).execute(db);
    expect((await t.client().get('/readyz')).status).toBe(200);

    t.server.drain();
    const draining = await t.client().get('/readyz');
    expect(draining.status).toBe(503);
    expect(draining.body).toMatchObject({ ok: false, draining: true, checks: { database: { ok: true } } });
    expect((await t.client().get('/livez')).status).toBe(200);
  });
});

it('SIGTERM: not ready at once, still serving for SHUTDOWN_DRAIN_MS, then gone', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-drain-'));
  const server = await spawnServer({
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      WEB_DIST: '',
      LOG_LEVEL: 'info',
      DATABASE_URL: '',
      REDIS_URL: '',
      SHUTDOWN_DRAIN_MS: '1500',
    },
    timeoutMs: 20_000,
  });
  try {
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    let readyz = 200;
    for (let i = 0; i < 50 && readyz === 200; i++) {
      readyz = (await fetch(`${server.url}/readyz`)).status;
      if (readyz === 200) await new Promise((r) => setTimeout(r, 20));
    }
    expect(readyz).toBe(503);
    // Draining, it still answers everything else.
    expect((await fetch(`${server.url}/livez`)).status).toBe(200);
    expect((await fetch(`${server.url}/api/public-settings`)).status).toBeLessThan(500);
    expect(await exited).toBe(0);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(1400);
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 30_000);

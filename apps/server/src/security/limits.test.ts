/**
 * The LimitStore contract on every backend: memory, SQLite, PostgreSQL and Redis (the
 * last two when TEST_DATABASE_URL / TEST_REDIS_URL are set). Concurrent counts each get
 * their own number; pacing hands out slots one interval apart.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, migrate, openDb } from '../storage/db.ts';
import { dropPgSchema } from '../test/harness.ts';
import { type LimitStore, MemoryLimits, RedisLimits, SqlLimits } from './limits.ts';

const pgUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
if (!pgUrl) console.warn('limits.test.ts: PostgreSQL skipped (set TEST_DATABASE_URL)');
if (!redisUrl) console.warn('limits.test.ts: Redis skipped (set TEST_REDIS_URL)');

interface Backend {
  name: string;
  open(): Promise<{ store: LimitStore; close(): Promise<void> }>;
}

const backends: Backend[] = [
  { name: 'memory', open: async () => ({ store: new MemoryLimits(), close: async () => {} }) },
  {
    name: 'SQLite',
    open: async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'parley-limits-'));
      const db: Db = await openDb({ databaseUrl: null, dataDir: dir });
      await migrate(db);
      return {
        store: new SqlLimits(db.kysely),
        close: async () => {
          await db.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  ...(pgUrl
    ? [
        {
          name: 'PostgreSQL',
          open: async () => {
            const schema = `t_limits_${process.pid}_${Date.now().toString(36)}`;
            const db = await openDb({ databaseUrl: pgUrl, dataDir: tmpdir(), pgSchema: schema });
            await migrate(db);
            return {
              store: new SqlLimits(db.kysely),
              close: async () => {
                await db.close();
                await dropPgSchema(pgUrl, schema);
              },
            };
          },
        },
      ]
    : []),
  ...(redisUrl
    ? [
        {
          name: 'Redis',
          open: async () => {
            const redis = new Redis(redisUrl);
            return {
              store: new RedisLimits(redis, `test_limits_${randomUUID()}`),
              close: async () => {
                redis.disconnect();
              },
            };
          },
        },
      ]
    : []),
];

describe.each(backends)('LimitStore on $name', (backend) => {
  let store: LimitStore;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ store, close } = await backend.open());
  });
  afterAll(async () => {
    await close?.();
  });
  const key = () => `k:${randomUUID()}`;

  it('counts attempts in a window that starts at the first, and starts again after it', async () => {
    const k = key();
    const now = Date.now();
    const first = await store.count(k, 10_000, now);
    expect(first.count).toBe(1);
    expect(first.resetAt).toBeGreaterThan(now + 9_000);
    expect(first.resetAt).toBeLessThanOrEqual(now + 10_000);
    expect((await store.count(k, 10_000, now + 1)).count).toBe(2);
    await store.uncount(k);
    expect((await store.count(k, 10_000, now + 2)).count).toBe(2);
    await store.clear(k);
    expect((await store.count(k, 10_000, now + 3)).count).toBe(1);
    // A short window really ends (Redis expires the key on its own clock).
    const short = key();
    await store.count(short, 50, Date.now());
    await new Promise((r) => setTimeout(r, 120));
    expect((await store.count(short, 50, Date.now())).count).toBe(1);
  });

  it('uncount never goes below zero', async () => {
    const k = key();
    await store.uncount(k);
    await store.count(k, 10_000, Date.now());
    await store.uncount(k);
    await store.uncount(k);
    expect((await store.count(k, 10_000, Date.now())).count).toBe(1);
  });

  it('100 concurrent attempts each get their own number', async () => {
    const k = key();
    const now = Date.now();
    const counts = await Promise.all(Array.from({ length: 100 }, () => store.count(k, 60_000, now)));
    expect(counts.map((c) => c.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });

  it('paces: slots one interval apart, refused beyond the queue, free again later', async () => {
    const k = key();
    const now = Date.now();
    const waits = [];
    for (let i = 0; i < 4; i++) waits.push(await store.pace(k, 1000, 3000, now));
    expect(waits).toEqual([
      { ok: true, granted: 1, waitMs: 0 },
      { ok: true, granted: 1, waitMs: 1000 },
      { ok: true, granted: 1, waitMs: 2000 },
      { ok: true, granted: 1, waitMs: 3000 },
    ]);
    expect(await store.pace(k, 1000, 3000, now)).toEqual({ ok: false, retryAfterMs: 1000 });
    expect(await store.pace(k, 1000, 3000, now + 1000)).toEqual({ ok: true, granted: 1, waitMs: 3000 });
    // Long idle: the next slot is now again.
    const idle = key();
    await store.pace(idle, 20, 0, Date.now());
    await new Promise((r) => setTimeout(r, 60));
    expect(await store.pace(idle, 20, 0, Date.now())).toEqual({ ok: true, granted: 1, waitMs: 0 });
  });

  it('grants several slots at once, as many as fit, never more', async () => {
    const k = key();
    const now = Date.now();
    expect(await store.pace(k, 100, 900, now, 4)).toEqual({ ok: true, granted: 4, waitMs: 0 });
    expect(await store.pace(k, 100, 900, now, 4)).toEqual({ ok: true, granted: 4, waitMs: 400 });
    expect(await store.pace(k, 100, 900, now, 4)).toEqual({ ok: true, granted: 2, waitMs: 800 });
    expect(await store.pace(k, 100, 900, now, 4)).toEqual({ ok: false, retryAfterMs: 100 });
  });

  it('concurrent paced attempts get distinct slots', async () => {
    const k = key();
    const now = Date.now();
    const r = await Promise.all(Array.from({ length: 30 }, () => store.pace(k, 100, 1000, now)));
    const granted = r.flatMap((p) => (p.ok ? [p.waitMs] : []));
    expect(granted.sort((a, b) => a - b)).toEqual(Array.from({ length: 11 }, (_, i) => i * 100));
  });

  it('sweep forgets what has expired and keeps the rest', async () => {
    const old = key();
    const live = key();
    await store.count(old, 10, Date.now());
    await store.count(live, 60_000, Date.now());
    await new Promise((r) => setTimeout(r, 40));
    const now = Date.now();
    await store.sweep(now);
    expect((await store.count(live, 60_000, now)).count).toBe(2);
    expect((await store.count(old, 60_000, now)).count).toBe(1);
  });
});

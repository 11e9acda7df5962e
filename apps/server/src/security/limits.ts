/**
 * Attempt counters every process shares. Each operation is one atomic step of the store
 * (one SQL statement, one Redis script), and an attempt is counted *before* it is judged:
 * a hundred concurrent attempts each get their own number, so exactly `limit` of them
 * are let through, whichever process they reach.
 *
 * - Redis when REDIS_URL is set (what several processes share anyway);
 * - the database otherwise (one process on SQLite or PostgreSQL; counts survive restarts);
 * - memory only for what one process alone decides and a restart may forget (the
 *   per-user send pace without Redis, where there is exactly one process).
 */
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import { run, stmt } from '../storage/program.ts';
import type { Database } from '../storage/schema.ts';

export interface Count {
  /** Attempts in the window, this one included. */
  count: number;
  /** When the window ends (ms). */
  resetAt: number;
}

/** Granted: how many slots (at least 1) and how long until the first; or refused, and for how long. */
export type Pace = { ok: true; granted: number; waitMs: number } | { ok: false; retryAfterMs: number };

/**
 * The generic cell-rate algorithm every store runs (Redis as a script): slots one
 * `intervalMs` apart, the next free one at `tat`; up to `want` of them are granted while
 * the first is at most `maxAheadMs` away. Returns the answer and the next free slot.
 */
export function gcra(
  tat: number | null,
  now: number,
  intervalMs: number,
  maxAheadMs: number,
  want: number,
): { pace: Pace; tat: number | null } {
  const first = Math.max(tat ?? now, now);
  const late = first - now;
  if (late > maxAheadMs) return { pace: { ok: false, retryAfterMs: Math.max(1, late - maxAheadMs) }, tat };
  const granted = Math.min(want, Math.floor((maxAheadMs - late) / intervalMs) + 1);
  return { pace: { ok: true, granted, waitMs: late }, tat: first + granted * intervalMs };
}

export interface LimitStore {
  /** Counts one attempt under `key` in a window of `windowMs` that starts at the first. */
  count(key: string, windowMs: number, now: number): Promise<Count>;
  /** Takes one attempt back (it turned out not to count, e.g. the right password). */
  uncount(key: string): Promise<void>;
  clear(key: string): Promise<void>;
  /**
   * Paces attempts to one every `intervalMs` (see gcra): reserves the next free slot, or
   * up to `want` consecutive ones, if the first is at most `maxAheadMs` away and says how
   * long to wait for it; otherwise refuses, saying when a slot is free again.
   */
  pace(key: string, intervalMs: number, maxAheadMs: number, now: number, want?: number): Promise<Pace>;
  /** Forgets what has expired. */
  sweep(now: number): Promise<void>;
}

// ---- database ----------------------------------------------------------------------------

const COUNT = stmt(
  'insert into rate_limits (key, count, reset_at) values (?, 1, ?) on conflict (key) do update set ' +
    'count = case when rate_limits.reset_at <= ? then 1 else rate_limits.count + 1 end, ' +
    'reset_at = case when rate_limits.reset_at <= ? then excluded.reset_at else rate_limits.reset_at end ' +
    'returning count, reset_at',
);
const UNCOUNT = stmt('update rate_limits set count = count - 1 where key = ? and count > 0');
const CLEAR = stmt('delete from rate_limits where key = ?');
/** A pacing row (`reset_at`: the next free slot), created empty and locked for the read-modify-write. */
const PACE_ROW = stmt('insert into rate_limits (key, count, reset_at) values (?, 0, 0) on conflict (key) do nothing');
const PACE_READ = stmt('select reset_at from rate_limits where key = ?', ' for update');
const PACE_WRITE = stmt('update rate_limits set reset_at = ? where key = ?');
const SWEEP = stmt('delete from rate_limits where reset_at < ?');

export class SqlLimits implements LimitStore {
  private readonly db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  async count(key: string, windowMs: number, now: number): Promise<Count> {
    const [r] = await run<{ count: number; reset_at: number }>(this.db, COUNT, [key, now + windowMs, now, now]);
    return { count: Number(r?.count ?? 1), resetAt: Number(r?.reset_at ?? now + windowMs) };
  }

  async uncount(key: string): Promise<void> {
    await run(this.db, UNCOUNT, [key]);
  }

  async clear(key: string): Promise<void> {
    await run(this.db, CLEAR, [key]);
  }

  async pace(key: string, intervalMs: number, maxAheadMs: number, now: number, want = 1): Promise<Pace> {
    // One transaction: SQLite has a single writer, PostgreSQL locks the row (FOR UPDATE).
    return this.db.transaction().execute(async (tx) => {
      await run(tx, PACE_ROW, [key]);
      const [row] = await run<{ reset_at: number }>(tx, PACE_READ, [key]);
      const stored = Number(row?.reset_at ?? 0);
      const r = gcra(stored || null, now, intervalMs, maxAheadMs, want);
      if (r.pace.ok) await run(tx, PACE_WRITE, [r.tat, key]);
      return r.pace;
    });
  }

  async sweep(now: number): Promise<void> {
    await run(this.db, SWEEP, [now]);
  }
}

// ---- Redis -------------------------------------------------------------------------------

/** KEYS[1]; ARGV: window. Returns {count, ms left}. */
const COUNT_LUA = `
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {n, ttl}`;
const UNCOUNT_LUA = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n > 0 then redis.call('DECR', KEYS[1]) end
return 0`;
/** gcra() in Lua. KEYS[1]; ARGV: now, interval, max ahead, want. Returns {granted, wait} or {0, retry after}. */
const PACE_LUA = `
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local ahead = tonumber(ARGV[3])
local want = tonumber(ARGV[4])
local first = tonumber(redis.call('GET', KEYS[1]) or '0')
if first < now then first = now end
local late = first - now
if late > ahead then return {0, late - ahead} end
local granted = math.min(want, math.floor((ahead - late) / interval) + 1)
local tat = first + granted * interval
redis.call('SET', KEYS[1], tat, 'PX', math.max(1, math.ceil(tat - now)))
return {granted, late}`;

type Script = (key: string, ...args: (string | number)[]) => Promise<[number, number]>;

export class RedisLimits implements LimitStore {
  private readonly prefix: string;
  private readonly redis: Redis;
  private readonly scripts: { count: Script; uncount: Script; pace: Script };

  constructor(redis: Redis, namespace: string) {
    this.redis = redis;
    this.prefix = `${namespace}:limit:`;
    // defineCommand runs each script by its SHA, loading it again after a Redis restart.
    const define = (name: string, lua: string): Script => {
      redis.defineCommand(name, { numberOfKeys: 1, lua });
      const r = redis as unknown as Record<string, Script>;
      return (key, ...args) => (r[name] as Script).call(redis, key, ...args);
    };
    this.scripts = {
      count: define('parleyLimitCount', COUNT_LUA),
      uncount: define('parleyLimitUncount', UNCOUNT_LUA),
      pace: define('parleyLimitPace', PACE_LUA),
    };
  }

  async count(key: string, windowMs: number, now: number): Promise<Count> {
    const [count, left] = await this.scripts.count(this.prefix + key, windowMs);
    return { count: Number(count), resetAt: now + Number(left) };
  }

  async uncount(key: string): Promise<void> {
    await this.scripts.uncount(this.prefix + key);
  }

  async clear(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }

  async pace(key: string, intervalMs: number, maxAheadMs: number, now: number, want = 1): Promise<Pace> {
    const [granted, ms] = await this.scripts.pace(this.prefix + key, now, intervalMs, maxAheadMs, want);
    return Number(granted) > 0
      ? { ok: true, granted: Number(granted), waitMs: Number(ms) }
      : { ok: false, retryAfterMs: Math.max(1, Number(ms)) };
  }

  async sweep(): Promise<void> {
    // Keys expire by themselves.
  }
}

// ---- memory (one process) ----------------------------------------------------------------

export class MemoryLimits implements LimitStore {
  private readonly counts = new Map<string, Count>();
  /** Next free slot per paced key. */
  private readonly slots = new Map<string, number>();

  async count(key: string, windowMs: number, now: number): Promise<Count> {
    let c = this.counts.get(key);
    if (!c || c.resetAt <= now) {
      c = { count: 0, resetAt: now + windowMs };
      this.counts.set(key, c);
    }
    c.count += 1;
    return { ...c };
  }

  async uncount(key: string): Promise<void> {
    const c = this.counts.get(key);
    if (c && c.count > 0) c.count -= 1;
  }

  async clear(key: string): Promise<void> {
    this.counts.delete(key);
    this.slots.delete(key);
  }

  async pace(key: string, intervalMs: number, maxAheadMs: number, now: number, want = 1): Promise<Pace> {
    const r = gcra(this.slots.get(key) ?? null, now, intervalMs, maxAheadMs, want);
    if (r.pace.ok && r.tat !== null) this.slots.set(key, r.tat);
    return r.pace;
  }

  async sweep(now: number): Promise<void> {
    for (const [k, c] of this.counts) if (c.resetAt <= now) this.counts.delete(k);
    for (const [k, tat] of this.slots) if (tat <= now) this.slots.delete(k);
  }
}

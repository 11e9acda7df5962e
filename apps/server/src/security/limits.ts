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
import { run, stmt } from '../storage/chat-rows.ts';
import type { Database } from '../storage/schema.ts';

export interface Count {
  /** Attempts in the window, this one included. */
  count: number;
  /** When the window ends (ms). */
  resetAt: number;
}

export type Pace = { ok: true; waitMs: number } | { ok: false; retryAfterMs: number };

export interface LimitStore {
  /** Counts one attempt under `key` in a window of `windowMs` that starts at the first. */
  count(key: string, windowMs: number, now: number): Promise<Count>;
  /** Takes one attempt back (it turned out not to count, e.g. the right password). */
  uncount(key: string): Promise<void>;
  clear(key: string): Promise<void>;
  /**
   * Paces attempts to one every `intervalMs` (a generic cell-rate algorithm): reserves
   * the next free slot if it is at most `maxAheadMs` away and says how long to wait for
   * it; otherwise refuses, saying when a slot is free again.
   */
  pace(key: string, intervalMs: number, maxAheadMs: number, now: number): Promise<Pace>;
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
/** `count` says whether the slot was granted (1) or refused (0); `reset_at` is the next free slot. */
const PACE = stmt(
  'insert into rate_limits (key, count, reset_at) values (?, 1, ?) on conflict (key) do update set ' +
    'count = case when rate_limits.reset_at - ? > ? then 0 else 1 end, ' +
    'reset_at = case when rate_limits.reset_at - ? > ? then rate_limits.reset_at ' +
    'when rate_limits.reset_at > ? then rate_limits.reset_at + ? else excluded.reset_at end ' +
    'returning count, reset_at',
);
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

  async pace(key: string, intervalMs: number, maxAheadMs: number, now: number): Promise<Pace> {
    const [r] = await run<{ count: number; reset_at: number }>(this.db, PACE, [
      key,
      now + intervalMs,
      now,
      maxAheadMs,
      now,
      maxAheadMs,
      now,
      intervalMs,
    ]);
    const next = Number(r?.reset_at ?? now + intervalMs);
    if (Number(r?.count) === 1) return { ok: true, waitMs: Math.max(0, next - intervalMs - now) };
    return { ok: false, retryAfterMs: Math.max(1, next - now - maxAheadMs) };
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
/** KEYS[1]; ARGV: now, interval, max ahead. Returns {1, wait} or {0, retry after}. */
const PACE_LUA = `
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local ahead = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
if tat - now > ahead then return {0, tat - now - ahead} end
redis.call('SET', KEYS[1], tat + interval, 'PX', tat + interval - now)
return {1, tat - now}`;

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

  async pace(key: string, intervalMs: number, maxAheadMs: number, now: number): Promise<Pace> {
    const [ok, ms] = await this.scripts.pace(this.prefix + key, now, intervalMs, maxAheadMs);
    return Number(ok) === 1 ? { ok: true, waitMs: Number(ms) } : { ok: false, retryAfterMs: Math.max(1, Number(ms)) };
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

  async pace(key: string, intervalMs: number, maxAheadMs: number, now: number): Promise<Pace> {
    const tat = Math.max(this.slots.get(key) ?? now, now);
    if (tat - now > maxAheadMs) return { ok: false, retryAfterMs: Math.max(1, tat - now - maxAheadMs) };
    this.slots.set(key, tat + intervalMs);
    return { ok: true, waitMs: tat - now };
  }

  async sweep(now: number): Promise<void> {
    for (const [k, c] of this.counts) if (c.resetAt <= now) this.counts.delete(k);
    for (const [k, tat] of this.slots) if (tat <= now) this.slots.delete(k);
  }
}

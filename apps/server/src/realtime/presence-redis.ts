/**
 * Presence counted in Redis, shared by every server process. Per user, a hash holds one
 * field per process with that process's open sockets; a user is online while any field
 * remains. Each process keeps a heartbeat key alive (TTL `ttlMs`, renewed every third of
 * it); every `sweepMs` each process looks for processes whose heartbeat expired (killed,
 * frozen, cut off) and removes their fields, and whoever is then offline everywhere gets
 * a lastSeen. So a dead process's users are shown offline within ttlMs + sweepMs.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { PresenceCounter } from './presence.ts';

function keys(ns: string) {
  return {
    user: (id: string) => `${ns}:presence:${id}`,
    proc: (origin: string) => `${ns}:proc:${origin}`,
    procUsers: (origin: string) => `${ns}:procusers:${origin}`,
    procs: `${ns}:procs`,
    sweepLock: (origin: string) => `${ns}:sweep:${origin}`,
  };
}

const SUM = `
local total = 0
for _, v in ipairs(redis.call('HVALS', KEYS[1])) do total = total + tonumber(v) end
return total`;

/** KEYS: user hash, this process's user set. ARGV: origin, user id. Returns the user's total. */
const CONNECT = `
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('SADD', KEYS[2], ARGV[2])
${SUM}`;

const DISCONNECT = `
local n = redis.call('HINCRBY', KEYS[1], ARGV[1], -1)
if n <= 0 then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('SREM', KEYS[2], ARGV[2])
end
${SUM}`;

/** KEYS: user hash. ARGV: dead origin. -1 when it held nothing, else the remaining total. */
const SWEEP = `
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return -1 end
${SUM}`;

export interface RedisPresenceOptions {
  /** Key namespace (config.redisPrefix). */
  namespace?: string;
  ttlMs?: number;
  sweepMs?: number;
}

export class RedisPresenceCounter implements PresenceCounter {
  private readonly redis: Redis;
  private readonly origin: string;
  private readonly log: FastifyBaseLogger;
  private readonly k: ReturnType<typeof keys>;
  readonly ttlMs: number;
  readonly sweepMs: number;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;
  /** Called for each user a sweep found offline everywhere. */
  onOffline: (userId: string) => Promise<void> = async () => {};

  constructor(redis: Redis, origin: string, log: FastifyBaseLogger, opts: RedisPresenceOptions = {}) {
    this.redis = redis;
    this.origin = origin;
    this.log = log;
    this.k = keys(opts.namespace ?? 'parley');
    this.ttlMs = opts.ttlMs ?? 15_000;
    this.sweepMs = opts.sweepMs ?? 5_000;
    this.heartbeat = setInterval(() => void this.beat(), Math.max(100, Math.floor(this.ttlMs / 3)));
    this.heartbeat.unref();
    this.sweeper = setInterval(() => void this.sweep(), this.sweepMs);
    this.sweeper.unref();
  }

  /** Registers this process; call once before serving. */
  async start(): Promise<void> {
    await this.beat();
  }

  private async beat(): Promise<void> {
    if (this.closed) return;
    try {
      await this.redis
        .multi()
        .set(this.k.proc(this.origin), '1', 'PX', this.ttlMs)
        .sadd(this.k.procs, this.origin)
        .exec();
    } catch (err) {
      this.log.warn({ err }, 'presence heartbeat failed');
    }
  }

  async connect(userId: string): Promise<boolean> {
    const total = await this.redis.eval(
      CONNECT,
      2,
      this.k.user(userId),
      this.k.procUsers(this.origin),
      this.origin,
      userId,
    );
    return Number(total) === 1;
  }

  async disconnect(userId: string): Promise<boolean> {
    if (this.closed) return false;
    const total = await this.redis.eval(
      DISCONNECT,
      2,
      this.k.user(userId),
      this.k.procUsers(this.origin),
      this.origin,
      userId,
    );
    return Number(total) <= 0;
  }

  async online(userIds: readonly string[]): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    const pipe = this.redis.pipeline();
    for (const id of userIds) pipe.hlen(this.k.user(id));
    const results = (await pipe.exec()) ?? [];
    const out = new Set<string>();
    userIds.forEach((id, i) => {
      if (Number(results[i]?.[1] ?? 0) > 0) out.add(id);
    });
    return out;
  }

  /** Removes the fields of processes whose heartbeat expired; returns the users now offline. */
  async sweep(): Promise<string[]> {
    if (this.closed) return [];
    const offline: string[] = [];
    try {
      for (const dead of await this.redis.smembers(this.k.procs)) {
        if (dead === this.origin || (await this.redis.exists(this.k.proc(dead)))) continue;
        // One process sweeps each dead one.
        if ((await this.redis.set(this.k.sweepLock(dead), this.origin, 'PX', 60_000, 'NX')) !== 'OK') continue;
        const users = await this.redis.smembers(this.k.procUsers(dead));
        for (const userId of users) {
          const left = Number(await this.redis.eval(SWEEP, 1, this.k.user(userId), dead));
          if (left === 0) offline.push(userId);
        }
        await this.redis.multi().del(this.k.procUsers(dead)).srem(this.k.procs, dead).exec();
        this.log.warn({ process: dead, users: users.length, offline: offline.length }, 'swept a dead process');
      }
      for (const userId of offline) await this.onOffline(userId);
    } catch (err) {
      this.log.warn({ err }, 'presence sweep failed');
    }
    return offline;
  }

  /**
   * Leaving: our heartbeat goes, so the next sweep (any process) settles our users; the
   * sockets closing now also count themselves down where they still can.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeat);
    clearInterval(this.sweeper);
    // Shutting down: a heartbeat left behind expires on its own, and the sweep settles its users.
    await this.redis.del(this.k.proc(this.origin)).catch(() => {});
  }
}

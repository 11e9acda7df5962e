import { describe, expect, it } from 'vitest';
import {
  ASSUMED,
  type Assumed,
  type Costs,
  crossProcessShare,
  MEASURED,
  parseArgs,
  report,
  type Shape,
  shardSpread,
  simulate,
} from './simulate.ts';

/** 3,600 users sending one message an hour each: one message a second. */
const tiny: Assumed = {
  ...ASSUMED,
  usersOnline: 3600,
  socketsPerUser: 1,
  activeShare: 1,
  activePerHour: 1,
  idlePerHour: 0,
  receiptsPerMessage: 0,
  twoShardPgUs: 200,
  twoShardWalBytes: 100,
  twoShardMs: 2,
  heartbeatMs: 30_000,
  processMemory: 1e7,
  processBaseRss: 0,
  pgCores: 1,
  walPerSecond: 1e6,
};
const costs: Costs = {
  serverUs: 100,
  serverCrossUs: 50,
  pgUs: 1000,
  redisUs: 10,
  walBytes: 1000,
  rows: 7,
  rssPerSocket: 1000,
  heartbeatUs: 30,
  heartbeatPgUs: 0,
};
const shape: Shape = { processes: 2, shards: 2, redisShards: 1, chatPlacement: 'low-user' };
const pctOf = (o: ReturnType<typeof simulate>, r: string) => o.loads.find((l) => l.resource === r)?.pct;

describe('the fan-out simulation', () => {
  it('adds up a tiny case by hand', () => {
    const o = simulate(shape, costs, tiny);
    expect(o.messagesPerSecond).toBeCloseTo(1);
    expect(o.crossProcess).toBe(0.5);
    expect(o.multiShard).toBe(0.5);
    // Server, per process: (100 + 0.5 × 50) µs × 1 msg/s / 2, plus 1,800 sockets × 30 µs every 30 s.
    expect(pctOf(o, 'server CPU')).toBeCloseTo(((62.5 + 1800) / 1e6) * 100);
    // Memory, per process: 1,800 sockets × 1,000 B of 10 MB.
    expect(pctOf(o, 'server memory')).toBeCloseTo(18);
    // PostgreSQL, per shard: (1,000 + 0.5 extra shards × 200) µs / 2 shards, of one core.
    expect(pctOf(o, 'PostgreSQL CPU')).toBeCloseTo((550 / 1e6) * 100);
    expect(pctOf(o, 'WAL')).toBeCloseTo((525 / 1e6) * 100);
    expect(pctOf(o, 'Redis CPU')).toBeCloseTo((10 / 1e6) * 100);
    expect(o.addedMs).toBeCloseTo(1);
    expect(o.rowsPerShardPerSecond).toBeCloseTo(3.5);
    // Memory saturates first, at 100/18 of the users.
    expect(o.first.resource).toBe('server memory');
    expect(o.first.saturatesAt).toBeCloseTo(20_000);
  });

  it('counts the shards a send touches by where chats live', () => {
    expect(crossProcessShare(1)).toBe(0);
    expect(crossProcessShare(4)).toBe(0.75);
    expect(shardSpread(1, 'chat-hash')).toEqual({ multi: 0, extra: 0 });
    expect(shardSpread(4, 'low-user').multi).toBeCloseTo(0.75);
    expect(shardSpread(4, 'low-user').extra).toBeCloseTo(0.75);
    // Three picks of two shards: all on one, 1/4; distinct shards 2 × (1 − 1/8) = 1.75.
    expect(shardSpread(2, 'chat-hash').multi).toBeCloseTo(0.75);
    expect(shardSpread(2, 'chat-hash').extra).toBeCloseTo(0.75);
  });

  it('moves the first bottleneck when a cost moves', () => {
    expect(simulate(shape, { ...costs, redisUs: 1e6 }, tiny).first.resource).toBe('Redis CPU');
    expect(simulate(shape, { ...costs, pgUs: 1e7 }, tiny).first.resource).toBe('PostgreSQL CPU');
    expect(simulate(shape, { ...costs, walBytes: 1e8 }, tiny).first.resource).toBe('WAL');
    expect(simulate(shape, { ...costs, heartbeatUs: 1e6 }, tiny).first.resource).toBe('server CPU');
    // A costlier two-shard commit makes PostgreSQL the bottleneck once sends span shards, not before.
    const dear: Assumed = { ...tiny, twoShardPgUs: 1e7 };
    expect(simulate({ ...shape, shards: 1 }, costs, dear).first.resource).toBe('server memory');
    expect(simulate(shape, costs, dear).first.resource).toBe('PostgreSQL CPU');
    // More processes take the memory off each; the next resource saturates later.
    const wide = simulate({ ...shape, processes: 20 }, costs, tiny);
    expect(wide.first.saturatesAt).toBeGreaterThan(20_000);
  });

  it('takes every default as an option and prints a row per shape', () => {
    const args = parseArgs(['--server-us', '700', '--pg-cores', '32', '--processes', '2,8', '--shards', '1,4']);
    expect(args.costs.serverUs).toBe(700);
    expect(args.costs.pgUs).toBe(MEASURED.pgUs);
    expect(args.assumed.pgCores).toBe(32);
    expect(report(args).filter((l) => /^\s+\d+\s+\d+\s/.test(l))).toHaveLength(4);
    expect(() => parseArgs(['--no-such-thing', '1'])).toThrow(/unknown option/);
    expect(() => parseArgs(['--shards', '0'])).toThrow();
  });
});

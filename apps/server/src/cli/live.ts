/**
 * What the shell tells a running server. The server hears of a block, a deletion, ended
 * sessions, a broadcast or the help link through its hub (realtime/hub.ts): with REDIS_URL
 * every server process listens on Redis, and the shell publishes there what the admin
 * routes publish (admin-routes.ts), so every process acts at once. Without Redis nothing
 * reaches a running server; each command says what happens then instead.
 */
import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import type { Hub } from '../realtime/hub.ts';
import { createRedisHub, type RedisHub } from '../realtime/redis-hub.ts';
import type { AdminOutput } from './output.ts';

/** The hub's log: nothing (a failed publication fails the round trip below, which says so). */
const quiet = (() => {
  const log = { info() {}, warn() {}, error() {}, debug() {}, trace() {}, fatal() {}, child: () => log };
  return log as unknown as FastifyBaseLogger;
})();

/**
 * Whether Redis answers, on one connection that does not retry: a hub that cannot connect
 * keeps retrying in the background, and the command would never end.
 */
async function reachable(url: string): Promise<void> {
  const probe = new Redis(url, {
    lazyConnect: true,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    // A socket that never connected never says it closed: its disconnect would wait this long.
    disconnectTimeout: 100,
  });
  let why: Error | null = null;
  probe.on('error', (e: Error) => {
    why ??= e;
  });
  try {
    await probe.connect();
    await probe.ping();
  } catch (e) {
    // The first error says why ("connect ECONNREFUSED …"); the rejection only that it closed.
    throw why ?? e;
  } finally {
    probe.disconnect();
  }
}

export interface Telling {
  /** What happened on the running server, when it was told (one line). */
  told: string;
  /** What happens there without Redis, or when Redis could not be reached (one line). */
  otherwise: string;
}

/**
 * Publishes what `publish` sends through Redis when REDIS_URL is set, and says so; says
 * `otherwise` when it is not (or Redis fails). The change is made already either way.
 */
export async function tellServers(
  config: Config,
  out: AdminOutput,
  say: Telling,
  publish: (hub: Hub) => void,
): Promise<void> {
  if (!config.redisUrl) {
    out.log(`No REDIS_URL: ${say.otherwise}`);
    return;
  }
  const where = `Redis at ${new URL(config.redisUrl).host}`;
  let hub: RedisHub | null = null;
  try {
    await reachable(config.redisUrl);
    hub = await createRedisHub(config.redisUrl, config.redisPrefix, quiet);
    publish(hub);
    // Commands on one connection are answered in order: once this is, so were the publications.
    await hub.redis.ping();
    out.log(`${say.told} (told every server process through ${where}).`);
  } catch (e) {
    out.error(`Could not reach ${where} (${e instanceof Error ? e.message : String(e)}): ${say.otherwise}`);
  } finally {
    await hub?.close();
  }
}

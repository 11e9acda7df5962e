/**
 * The Hub over Redis pub/sub, for several server processes. Each process subscribes to
 * the channels of the users it has sockets for, plus one global and one control channel.
 * A process delivers its own publications locally at once and skips their echo from
 * Redis (each message is tagged with its origin), so its own users never wait for the
 * round trip. What several processes share, and how sockets repair what pub/sub loses:
 * docs/scaling.md.
 */
import { randomBytes } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import type { DownFrame } from '@app/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import { ALL, CONTROL, type ControlMessage, type Hub, localEmitter, RESYNC } from './hub.ts';

export interface RedisHub extends Hub {
  /** This process's id (also used by Redis presence). */
  readonly origin: string;
  /** The command connection (shared with Redis presence). */
  readonly redis: Redis;
}

/** The two connections a hub needs (a subscriber cannot publish), connected, their errors logged. */
async function connectPair(url: string, origin: string, log: FastifyBaseLogger) {
  // Commands issued in one turn of the event loop (a group's publications) leave in one
  // write: Redis's CPU per message fell to a third in the bench.
  const options = { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: true, enableAutoPipelining: true };
  const pub = new Redis(url, { ...options, connectionName: `parley-${origin}-pub` });
  const sub = new Redis(url, { ...options, connectionName: `parley-${origin}-sub` });
  for (const [name, c] of [
    ['pub', pub],
    ['sub', sub],
  ] as const) {
    c.on('error', (err: Error) => log.warn({ err: err.message, connection: name }, 'redis error'));
  }
  await Promise.all([pub.connect(), sub.connect()]);
  return { pub, sub };
}

/**
 * Messages from other processes go to this process's listeners (its own were delivered
 * locally already). ioredis re-subscribes after a reconnection; what was published
 * meanwhile is lost, so every socket catches up from the database (RESYNC).
 *
 * A message is `origin time\n` then its JSON: the publishing process and when it
 * published (ms since the epoch), so a user's update tells how long it took to arrive.
 */
function routeMessages(
  sub: Redis,
  names: { prefix: string; user: string; all: string; control: string },
  emitter: EventEmitter,
  log: FastifyBaseLogger,
  onArrival: ((ms: number) => void) | undefined,
): void {
  sub.on('message', (channel: string, message: string) => {
    if (message.startsWith(names.prefix)) return; // our own, delivered locally already
    const nl = message.indexOf('\n');
    if (onArrival && channel.startsWith(names.user)) {
      const sentAt = Number(message.slice(message.indexOf(' ') + 1, nl));
      if (sentAt > 0) onArrival(Math.max(0, Date.now() - sentAt));
    }
    let payload: unknown;
    try {
      payload = JSON.parse(message.slice(nl + 1));
    } catch {
      log.warn({ channel }, 'unreadable hub message dropped');
      return;
    }
    if (channel === names.all) emitter.emit(ALL, payload);
    else if (channel === names.control) emitter.emit(CONTROL, payload);
    else if (channel.startsWith(names.user)) emitter.emit(channel.slice(names.user.length), payload);
  });
  let connectedOnce = true;
  sub.on('ready', () => {
    if (connectedOnce) {
      log.warn('redis subscription restored: sockets catch up from the database');
      emitter.emit(RESYNC);
    }
    connectedOnce = true;
  });
}

export async function createRedisHub(
  url: string,
  namespace: string,
  log: FastifyBaseLogger,
  /** Each user frame from another process: ms from its publication to its arrival here. */
  onArrival?: (ms: number) => void,
): Promise<RedisHub> {
  const USER_PREFIX = `${namespace}:u:`;
  const ALL_CHANNEL = `${namespace}:all`;
  const CONTROL_CHANNEL = `${namespace}:ctl`;
  const origin = randomBytes(6).toString('hex');
  const { pub, sub } = await connectPair(url, origin, log);

  const { emitter, on } = localEmitter();
  const prefix = `${origin} `;
  /** Local listeners per user and the SUBSCRIBE that serves them. */
  const channels = new Map<string, { count: number; ready: Promise<unknown> }>();

  routeMessages(
    sub,
    { prefix, user: USER_PREFIX, all: ALL_CHANNEL, control: CONTROL_CHANNEL },
    emitter,
    log,
    onArrival,
  );
  await sub.subscribe(ALL_CHANNEL, CONTROL_CHANNEL);

  const send = (channel: string, payload: unknown) => {
    pub.publish(channel, `${prefix}${Date.now()}\n${JSON.stringify(payload)}`).catch((err: unknown) => {
      log.warn({ err, channel }, 'redis publish failed');
    });
  };

  return {
    origin,
    redis: pub,
    publish(userId, frame) {
      emitter.emit(userId, frame);
      send(USER_PREFIX + userId, frame);
    },
    async subscribe(userId, listener) {
      const off = on<DownFrame>(userId, listener);
      let c = channels.get(userId);
      if (c) c.count += 1;
      else {
        c = { count: 1, ready: sub.subscribe(USER_PREFIX + userId) };
        channels.set(userId, c);
      }
      await c.ready;
      let done = false;
      return () => {
        if (done) return;
        done = true;
        off();
        const entry = channels.get(userId);
        if (!entry) return;
        entry.count -= 1;
        if (entry.count > 0) return;
        channels.delete(userId);
        sub
          .unsubscribe(USER_PREFIX + userId)
          .catch((err: unknown) => log.warn({ err, channel: 'user' }, 'redis unsubscribe failed'));
      };
    },
    publishAll(frame) {
      emitter.emit(ALL, frame);
      send(ALL_CHANNEL, frame);
    },
    subscribeAll: (listener) => on<DownFrame>(ALL, listener),
    publishControl(msg) {
      emitter.emit(CONTROL, msg);
      send(CONTROL_CHANNEL, msg);
    },
    subscribeControl: (listener) => on<ControlMessage>(CONTROL, listener),
    onResync: (listener) => on<void>(RESYNC, listener),
    async close() {
      emitter.removeAllListeners();
      await Promise.allSettled([sub.quit(), pub.quit()]);
    },
  };
}

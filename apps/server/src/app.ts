/** Builds the HTTP server: API, static web app, security headers, errors. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { API, type PublicSettings } from '@app/protocol';
import fastifyCookie from '@fastify/cookie';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { registerAdminRoutes } from './admin/admin-routes.ts';
import { registerAccountRoutes } from './auth/account-routes.ts';
import { Devices } from './auth/device.ts';
import { registerAuthRoutes, warnUnverifiedAdmin } from './auth/routes.ts';
import { Sessions } from './auth/session.ts';
import { Throttle } from './auth/throttle.ts';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { HttpError, sendError } from './http/errors.ts';
import { createMailer } from './mail/mailer.ts';
import { createLocalHub, type Hub } from './realtime/hub.ts';
import { PresenceTracker } from './realtime/presence.ts';
import { RedisPresenceCounter, type RedisPresenceOptions } from './realtime/presence-redis.ts';
import { Realtime } from './realtime/realtime.ts';
import { createRedisHub } from './realtime/redis-hub.ts';
import { WritePace } from './realtime/write-pace.ts';
import { registerSecurityHeaders } from './security/headers.ts';
import { type LimitStore, MemoryLimits, RedisLimits, SqlLimits } from './security/limits.ts';
import { originCheck } from './security/origin.ts';
import { registerMeRoutes } from './social/me-routes.ts';
import { AdminStore, HELP_LINK_KEY } from './storage/admin-store.ts';
import { ChatStore } from './storage/chat-store.ts';
import { migrate, openDb } from './storage/db.ts';
import { NotificationStore } from './storage/notification-store.ts';
import { PinStore } from './storage/pin-store.ts';
import { SocialStore } from './storage/social-store.ts';
import { Store } from './storage/store.ts';

/** JSON bodies are small: the largest legitimate one is a sign-up form. */
export const BODY_LIMIT = 16 * 1024;

export interface Server {
  app: FastifyInstance;
  ctx: AppContext;
  /** Stops accepting, finishes in-flight requests and mail, closes the database. */
  close(): Promise<void>;
}

export interface BuildOptions {
  /** Use this PostgreSQL schema (tests). */
  pgSchema?: string;
  /** SQLite file override, e.g. ':memory:' (tests). */
  sqliteFile?: string;
  logger?: boolean;
  /** Where log lines go instead of standard output (tests read them); implies a logger. */
  logStream?: { write(line: string): void };
  /** Redis presence timings (tests shorten them). */
  presence?: RedisPresenceOptions;
}

export async function buildServer(config: Config, opts: BuildOptions = {}): Promise<Server> {
  const https = config.publicUrl.startsWith('https://');
  const app = Fastify({
    bodyLimit: BODY_LIMIT,
    trustProxy: config.trustProxy,
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    logger:
      opts.logger === false && !opts.logStream
        ? false
        : {
            level: config.logLevel,
            ...(opts.logStream ? { stream: opts.logStream } : {}),
            redact: {
              paths: ['req.headers.cookie', 'req.headers.authorization', 'res.headers["set-cookie"]', '*.password'],
              censor: '[redacted]',
            },
          },
  });

  const db = await openDb({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    ...(opts.sqliteFile ? { sqliteFile: opts.sqliteFile } : {}),
    ...(opts.pgSchema || config.databaseSchema ? { pgSchema: opts.pgSchema ?? config.databaseSchema ?? '' } : {}),
  });
  const applied = await migrate(db);
  if (applied.length) app.log.info({ applied, engine: db.engine }, 'migrations applied');
  const store = new Store(db);
  const adminHolder = await store.userByEmail(config.adminEmail);
  if (adminHolder) warnUnverifiedAdmin(app.log, adminHolder);
  const mailer = createMailer({
    smtpUrl: config.smtpUrl,
    from: config.mailFrom,
    dataDir: config.dataDir,
    log: app.log,
  });
  const rl = config.rateLimits;
  // Several processes on one PostgreSQL must sign sessions alike: without SESSION_SECRET
  // they share the secret the first one stored in the database.
  const sessionSecret =
    config.databaseUrl && !config.sessionSecretFromEnv
      ? await store.sharedSetting('internal:sessionSecret', config.sessionSecret)
      : config.sessionSecret;
  const sessions = new Sessions(store, sessionSecret, https);
  // SQLite: one writer, sends grouped into shared transactions. PostgreSQL: parallel
  // transactions on the pool (it has 10 connections; reads keep two).
  const chat = new ChatStore(
    db.kysely,
    db.engine === 'postgres' ? { maxBatch: 1, concurrency: 8 } : db.sqlite ? { sqlite: db.sqlite } : {},
  );
  const social = new SocialStore(db.kysely);
  const pins = new PinStore(db.kysely);
  const notices = new NotificationStore(db.kysely);
  // One process: in-memory fan-out and presence. Several (REDIS_URL): Redis pub/sub
  // between them and presence counted in Redis, with dead processes swept.
  let hub: Hub;
  let presence: PresenceTracker;
  /** This process among several (its id in Redis), shown by /healthz. */
  let instance: string | null = null;
  // Attempt counts every process shares: Redis with several processes, else the database.
  // The per-user send pace without Redis has one process to agree with: memory.
  let limits: LimitStore;
  let writePace: WritePace;
  let redis: Redis | null = null;
  if (config.redisUrl) {
    const redisHub = await createRedisHub(config.redisUrl, config.redisPrefix, app.log);
    redis = redisHub.redis;
    limits = new RedisLimits(redisHub.redis, config.redisPrefix);
    writePace = new WritePace(limits, rl.userWritesPerSecond, rl.userWriteBurst, 8);
    const counter = new RedisPresenceCounter(redisHub.redis, redisHub.origin, app.log, {
      namespace: config.redisPrefix,
      ttlMs: config.presenceTtlMs,
      sweepMs: config.presenceSweepMs,
      ...opts.presence,
    });
    await counter.start();
    hub = redisHub;
    instance = redisHub.origin;
    presence = new PresenceTracker(store, social, hub, counter);
    counter.onOffline = (userId) => presence.wentOffline(userId);
  } else {
    hub = createLocalHub();
    presence = new PresenceTracker(store, social, hub);
    limits = new SqlLimits(db.kysely);
    writePace = new WritePace(new MemoryLimits(), rl.userWritesPerSecond, rl.userWriteBurst, 1);
  }
  const originAllowed = originCheck(config);
  const realtime = new Realtime({
    sessions,
    store,
    chat,
    social,
    pins,
    notices,
    hub,
    presence,
    log: app.log,
    originAllowed,
    frameRate: { perSecond: config.wsFramesPerSecond, burst: config.wsBurst },
    helloTimeoutMs: config.wsHelloTimeoutMs,
    writePace,
  });
  realtime.attach(app.server);
  const ctx: AppContext = {
    config,
    store,
    chat,
    social,
    pins,
    notices,
    admin: new AdminStore(db.kysely),
    realtime,
    sessions,
    mailer,
    throttle: new Throttle(limits, rl),
    devices: new Devices(sessionSecret, https),
    log: app.log,
  };

  app.decorateRequest('auth', null);
  // While shutting down, every response ends its connection, so keep-alive clients
  // with a request in flight do not hold the process open.
  let closing = false;
  app.addHook('onSend', async (_req, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
  await app.register(fastifyCookie);
  registerSecurityHeaders(app, { https });
  // Only JSON bodies: no form posts, so no cross-site form can reach the API.
  app.removeContentTypeParser('text/plain');

  app.setErrorHandler((err: FastifyError | HttpError, req, reply) => {
    if (err instanceof HttpError) return sendError(reply, err);
    const status = err.statusCode ?? 500;
    if (status === 413) return sendError(reply, new HttpError(413, 'payload_too_large', 'The request is too large'));
    if (status === 415)
      return sendError(
        reply,
        new HttpError(415, 'unsupported_media_type', 'Send JSON (Content-Type: application/json)'),
      );
    if (status === 429)
      return sendError(reply, new HttpError(429, 'rate_limited', 'Too many requests. Please slow down.'));
    if (status >= 400 && status < 500) {
      return sendError(
        reply,
        new HttpError(
          status,
          'invalid_input',
          err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.name === 'SyntaxError'
            ? 'The request body is not valid JSON'
            : 'Invalid request',
        ),
      );
    }
    req.log.error({ err }, 'unhandled error');
    return sendError(reply, new HttpError(500, 'internal', 'Something went wrong. Please try again.'));
  });

  // Cross-site requests are refused: state-changing calls must come from our own origin.
  app.addHook('onRequest', async (req) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return;
    const origin = req.headers.origin;
    if (origin !== undefined && !originAllowed(origin, req.headers.host)) {
      throw new HttpError(403, 'bad_origin', 'Cross-origin requests are not allowed');
    }
  });

  await app.register(async (api) => {
    await api.register(fastifyRateLimit, {
      max: rl.apiPerMinute,
      timeWindow: 60_000,
      // One count per client for all processes when there are several.
      ...(redis ? { redis, nameSpace: `${config.redisPrefix}:api-limit:` } : {}),
      errorResponseBuilder: (_req, c) => ({
        statusCode: 429,
        error: 'rate_limited',
        message: `Too many requests. Please retry in ${Math.ceil(c.ttl / 1000)} s.`,
      }),
    });
    registerAuthRoutes(api, ctx);
    registerAccountRoutes(api, ctx);
    registerMeRoutes(api, ctx);

    api.get(API.publicSettings, async (): Promise<PublicSettings> => {
      return { helpLink: await store.getSetting(HELP_LINK_KEY), uploadUrl: config.uploadUrl };
    });
    registerAdminRoutes(api, ctx);
  });

  app.get('/healthz', async (_req, reply) => {
    try {
      await store.ping();
      return { ok: true, engine: db.engine, mail: mailer.mode, ...(instance ? { instance } : {}) };
    } catch {
      return reply.code(503).send({ ok: false });
    }
  });

  const webDist = config.webDist;
  const hasWeb = webDist !== null && existsSync(path.join(webDist, 'index.html'));
  if (hasWeb) {
    await app.register(fastifyStatic, {
      root: webDist,
      wildcard: false,
      index: false,
      setHeaders(res, file) {
        res.header(
          'cache-control',
          file.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
  } else {
    app.log.warn({ webDist }, 'web app not built: serving the API only (run npm run build)');
  }

  app.setNotFoundHandler((req, reply) => {
    const isApi = req.url.startsWith('/api/') || req.url === '/api';
    // A missing built file (e.g. an old chunk asked for by a tab opened before a deploy) is a
    // real 404, never the app's HTML under a script's URL.
    const isAsset = req.url.startsWith('/assets/');
    if (!isApi && !isAsset && hasWeb && (req.method === 'GET' || req.method === 'HEAD')) {
      // The single-page app owns every other path, its own 404 included.
      return reply.header('cache-control', 'no-cache').sendFile('index.html');
    }
    return sendError(reply, new HttpError(404, 'not_found', 'Not found'));
  });

  // Expired sessions are swept hourly (they are refused on use anyway), expired attempt
  // counts and send leases every minute.
  const sweep = setInterval(
    () => {
      store.deleteExpiredSessions(Date.now()).catch((err: unknown) => app.log.warn({ err }, 'session sweep failed'));
    },
    60 * 60 * 1000,
  );
  sweep.unref();
  const limitSweep = setInterval(() => {
    const now = Date.now();
    for (const sweep of [limits.sweep(now), writePace.sweep(now)]) {
      sweep.catch((err: unknown) => app.log.warn({ err }, 'limit sweep failed'));
    }
  }, 60_000);
  limitSweep.unref();

  let closed = false;
  return {
    app,
    ctx,
    async close() {
      if (closed) return;
      closed = true;
      closing = true;
      clearInterval(sweep);
      clearInterval(limitSweep);
      await realtime.close();
      await app.close();
      await presence.close();
      await hub.close();
      await mailer.drain();
      await db.close();
    },
  };
}

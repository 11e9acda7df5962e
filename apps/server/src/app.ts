/**
 * Builds the HTTP server: the services it runs on (services.ts), then the parts that
 * register themselves on Fastify, each closing what it opened: realtime, security
 * headers, errors, the origin guard, the API, health, the web app and the sweeps.
 */
import { KDF_FLOOR_LOG2 } from '@app/e2ee/kdf-floor';
import fastifyCookie from '@fastify/cookie';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { Devices } from './auth/device.ts';
import { Throttle } from './auth/throttle.ts';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { registerApi } from './http/api.ts';
import { registerErrorHandler } from './http/error-handler.ts';
import { registerHealth } from './http/health.ts';
import { registerOriginGuard } from './http/origin-guard.ts';
import { registerResponseCompression } from './http/response-compression.ts';
import { registerWebApp } from './http/web-app.ts';
import { registerMetrics } from './metrics/routes.ts';
import type { RedisPresenceOptions } from './realtime/presence-redis.ts';
import { Realtime } from './realtime/realtime.ts';
import { registerSecurityHeaders } from './security/headers.ts';
import { originCheck } from './security/origin.ts';
import { openServices, type Services } from './services.ts';
import { AdminStore } from './storage/accounts/admin-store.ts';
import type { KeyStore } from './storage/accounts/key-store.ts';
import { registerSweeps } from './sweeps.ts';

/** JSON bodies are small: the largest legitimate one is a sign-up form. */
export const BODY_LIMIT = 16 * 1024;

export interface Server {
  app: FastifyInstance;
  ctx: AppContext;
  /** Readiness turns 503 (/readyz) while the server goes on serving: the start of a graceful stop. */
  drain(): void;
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

function createApp(config: Config, opts: BuildOptions): FastifyInstance {
  return Fastify({
    bodyLimit: BODY_LIMIT,
    trustProxy: config.trustProxy,
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    // The proxy's request id (deploy/nginx sets X-Request-Id) names the request in every log
    // line, and in the log lines of the socket an upgrade opens.
    requestIdHeader: 'x-request-id',
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
}

/** While shutting down, every response ends its connection, so keep-alive clients with a request in flight do not hold the process open. */
function registerClosingConnections(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_req, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
}

/** The WebSocket endpoint; its sockets close before the HTTP server stops. */
function registerRealtime(app: FastifyInstance, config: Config, s: Services): Realtime {
  const realtime = new Realtime({
    sessions: s.sessions,
    store: s.store,
    chat: s.chat,
    social: s.social,
    pins: s.pins,
    notices: s.notices,
    hub: s.hub,
    presence: s.presence,
    log: app.log,
    metrics: s.metrics,
    originAllowed: originCheck(config),
    frameRate: { perSecond: config.wsFramesPerSecond, burst: config.wsBurst },
    helloTimeoutMs: config.wsHelloTimeoutMs,
    writePace: s.writePace,
    onPublished: (updates) => s.push.published(updates),
  });
  realtime.attach(app.server);
  s.metrics.countSockets(() => realtime.openSockets);
  app.addHook('preClose', async () => {
    await realtime.close();
  });
  return realtime;
}

/**
 * LEGACY_PASSWORDS resolved: `auto` is on only when the database holds accounts from before
 * end-to-end encryption at start, so a deployment born encrypted never asks a browser for a
 * password, even after a row is edited to look legacy.
 */
async function legacyPasswordsAllowed(config: Config, keys: KeyStore, log: FastifyBaseLogger): Promise<boolean> {
  if (config.legacyPasswords !== 'auto') return config.legacyPasswords === 'on';
  const waiting = await keys.legacyPasswordCount();
  if (waiting > 0) {
    log.info(
      { accounts: waiting },
      'accounts from before end-to-end encryption may sign in with their password once (LEGACY_PASSWORDS=auto)',
    );
  }
  return waiting > 0;
}

export async function buildServer(config: Config, opts: BuildOptions = {}): Promise<Server> {
  const app = createApp(config, opts);
  const s = await openServices(config, app.log, opts);
  // After the HTTP server has stopped: presence, fan-out, mail, then the database.
  app.addHook('onClose', async () => {
    await s.close();
  });
  registerClosingConnections(app);
  const realtime = registerRealtime(app, config, s);
  const legacyPasswords = await legacyPasswordsAllowed(config, s.keys, app.log);
  if (config.kdfCost < KDF_FLOOR_LOG2) {
    app.log.warn(
      { kdfCost: config.kdfCost },
      `KDF_COST below ${KDF_FLOOR_LOG2}: browsers refuse to derive passwords with it (only the web app's test build accepts it)`,
    );
  }
  const ctx: AppContext = {
    config,
    store: s.store,
    chat: s.chat,
    social: s.social,
    pins: s.pins,
    notices: s.notices,
    keys: s.keys,
    legacyPasswords,
    admin: new AdminStore(s.db.kysely),
    realtime,
    sessions: s.sessions,
    mailer: s.mailer,
    throttle: new Throttle(s.limits, config.rateLimits),
    devices: new Devices(s.sessionSecret, s.https),
    push: { store: s.pushes, publicKey: s.vapidPublicKey, sender: s.push },
    log: app.log,
  };

  app.decorateRequest('auth', null);
  await app.register(fastifyCookie);
  registerSecurityHeaders(app, { https: s.https });
  registerResponseCompression(app);
  // Only JSON bodies: no form posts, so no cross-site form can reach the API.
  app.removeContentTypeParser('text/plain');
  registerErrorHandler(app);
  registerOriginGuard(app, originCheck(config));
  await registerApi(app, ctx, s.redis);
  const health = registerHealth(app, s);
  registerMetrics(app, s.metrics, config.metricsToken);
  await registerWebApp(app, config.webDist);
  registerSweeps(app, s.store, s.limits, s.writePace);

  let closed: Promise<void> | null = null;
  return {
    app,
    ctx,
    drain: health.drain,
    close: () => {
      closed ??= app.close();
      return closed;
    },
  };
}

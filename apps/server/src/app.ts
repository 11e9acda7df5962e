/**
 * The server's composition, in one place: the services it runs on (services.ts), then
 * the parts that register themselves on Fastify, each closing what it opened: realtime,
 * security headers, errors, the origin guard, the API with every feature's routes (listed
 * here), health, metrics, the web app and the sweeps. http/ holds the transport they use
 * and registers no feature of its own. The parts, and the rules between them: docs/architecture.md.
 */

import { KDF_FLOOR_LOG2 } from '@app/e2ee/kdf-floor';
import fastifyCookie from '@fastify/cookie';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { registerAdminRoutes } from './admin/admin-routes.ts';
import { registerPublicSettingsRoutes } from './admin/public-settings.ts';
import { registerAttachmentRoutes } from './attachments/attachment-routes.ts';
import { registerAccountDataRoutes } from './auth/account-data-routes.ts';
import { registerAccountRoutes } from './auth/account-routes.ts';
import { Devices } from './auth/device.ts';
import { registerKeyRoutes } from './auth/key-routes.ts';
import { registerAuthRoutes } from './auth/routes.ts';
import { registerSessionRoutes } from './auth/session-routes.ts';
import { Throttle } from './auth/throttle.ts';
import { TwoFactor } from './auth/two-factor.ts';
import { registerTwoFactorRoutes } from './auth/two-factor-routes.ts';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { registerApi } from './http/api.ts';
import { registerErrorHandler } from './http/error-handler.ts';
import { createApp, registerClosingConnections } from './http/fastify-app.ts';
import { registerHealth } from './http/health.ts';
import { registerOriginGuard } from './http/origin-guard.ts';
import { registerResponseCompression } from './http/response-compression.ts';
import { registerWebApp } from './http/web-app.ts';
import { registerMetrics } from './metrics/routes.ts';
import { registerPushRoutes } from './push/routes.ts';
import type { RedisPresenceOptions } from './realtime/presence-redis.ts';
import { Realtime } from './realtime/realtime.ts';
import { registerSecurityHeaders } from './security/headers.ts';
import { originCheck } from './security/origin.ts';
import { healthSourceOf, openServices, type Services } from './services.ts';
import { registerExportRoutes } from './social/export-routes.ts';
import { registerMeRoutes } from './social/me-routes.ts';
import { AdminStore } from './storage/accounts/admin-store.ts';
import type { KeyStore } from './storage/accounts/key-store.ts';
import { TwoFactorStore } from './storage/accounts/two-factor-store.ts';
import { registerSweeps } from './sweeps.ts';

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

/** The WebSocket endpoint; its sockets close before the HTTP server stops. */
function registerRealtime(app: FastifyInstance, config: Config, s: Services): Realtime {
  const realtime = new Realtime(s, {
    log: app.log,
    originAllowed: originCheck(config),
    frameRate: { perSecond: config.wsFramesPerSecond, burst: config.wsBurst },
    helloTimeoutMs: config.wsHelloTimeoutMs,
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

/** The JSON API: every feature's routes. */
function registerRoutes(api: FastifyInstance, ctx: AppContext): void {
  registerAuthRoutes(api, ctx);
  registerTwoFactorRoutes(api, ctx);
  registerAccountRoutes(api, ctx);
  registerSessionRoutes(api, ctx);
  registerMeRoutes(api, ctx);
  registerExportRoutes(api, ctx);
  registerKeyRoutes(api, ctx);
  registerAccountDataRoutes(api, ctx);
  registerPushRoutes(api, ctx);
  registerAttachmentRoutes(api, ctx);
  registerPublicSettingsRoutes(api, ctx);
  registerAdminRoutes(api, ctx);
}

export async function buildServer(config: Config, opts: BuildOptions = {}): Promise<Server> {
  const app = createApp({
    trustProxy: config.trustProxy,
    logLevel: config.logLevel,
    logger: opts.logger,
    logStream: opts.logStream,
  });
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
    twoFactor: new TwoFactor(new TwoFactorStore(s.db.kysely), config, s.sessionSecret),
    legacyPasswords,
    admin: new AdminStore(s.db.kysely),
    realtime,
    sessions: s.sessions,
    mailer: s.mailer,
    throttle: new Throttle(s.limits, config.rateLimits),
    devices: new Devices(s.sessionSecret, s.https),
    attachments: s.attachments,
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
  const apiLimit = { perMinute: config.rateLimits.apiPerMinute, redis: s.redis, redisPrefix: config.redisPrefix };
  await registerApi(app, apiLimit, (api) => registerRoutes(api, ctx));
  const health = registerHealth(app, healthSourceOf(s));
  registerMetrics(app, s.metrics, config.metricsToken);
  await registerWebApp(app, config.webDist);
  registerSweeps(app, s);

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

/**
 * What the server runs on, opened once at start: the database (migrated) and its stores,
 * the session signer, the mailer, and either this process's own fan-out, presence and
 * limits or, with REDIS_URL, the ones shared with the other processes through Redis.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { Attachments } from './attachments/attachments.ts';
import { openBlobStore } from './attachments/open-blob-store.ts';
import { warnUnverifiedAdmin } from './auth/admin-address.ts';
import { Sessions } from './auth/session.ts';
import type { Config } from './config.ts';
import type { HealthSource } from './http/health.ts';
import { createMailer, type Mailer } from './mail/mailer.ts';
import { Metrics } from './metrics/metrics.ts';
import { generateVapidKeys, PushSender, type VapidKeys } from './push/sender.ts';
import { createLocalHub, type Hub } from './realtime/hub.ts';
import { PresenceTracker } from './realtime/presence.ts';
import { RedisPresenceCounter, type RedisPresenceOptions } from './realtime/presence-redis.ts';
import { createRedisHub } from './realtime/redis-hub.ts';
import { WritePace } from './realtime/write-pace.ts';
import { type LimitStore, MemoryLimits, RedisLimits, SqlLimits } from './security/limits.ts';
import { AccountStore } from './storage/accounts/account-store.ts';
import { KeyStore } from './storage/accounts/key-store.ts';
import { PinStore } from './storage/accounts/pin-store.ts';
import { PushStore } from './storage/accounts/push-store.ts';
import { AttachmentStore } from './storage/attachments/attachment-store.ts';
import { type Db, migrate, openDb, pendingMigrations } from './storage/db.ts';
import { ChatStore, chatWrites } from './storage/messages/chat-store.ts';
import { markSqliteServer, serverApplicationName } from './storage/running-server.ts';
import { NotificationStore } from './storage/social/notification-store.ts';
import { SocialStore } from './storage/social/social-store.ts';
import { VERSION } from './version.ts';

export interface ServiceOptions {
  pgSchema?: string;
  sqliteFile?: string;
  presence?: RedisPresenceOptions;
}

/** Fan-out, presence and limits: this process's own, or shared through Redis. */
interface Shared {
  hub: Hub;
  presence: PresenceTracker;
  limits: LimitStore;
  writePace: WritePace;
  redis: Redis | null;
  /** This process among several (its id in Redis), shown by /healthz. */
  instance: string | null;
}

async function openShared(
  config: Config,
  log: FastifyBaseLogger,
  db: Db,
  stores: { store: AccountStore; social: SocialStore },
  metrics: Metrics,
  presenceOpts?: RedisPresenceOptions,
): Promise<Shared> {
  const rl = config.rateLimits;
  if (!config.redisUrl) {
    // One process: in-memory fan-out and presence; attempt counts in the database, the
    // per-user send pace in memory (there is no other process to agree with).
    const hub = createLocalHub();
    return {
      hub,
      presence: new PresenceTracker(stores.store, stores.social, hub),
      limits: new SqlLimits(db.kysely),
      writePace: new WritePace(new MemoryLimits(), rl.userWritesPerSecond, rl.userWriteBurst, 1),
      redis: null,
      instance: null,
    };
  }
  // Several: Redis pub/sub between them, presence counted in Redis with dead processes
  // swept, and every count shared.
  const hub = await createRedisHub(config.redisUrl, config.redisPrefix, log, (ms) =>
    metrics.updateLagSeconds.observe(ms / 1000),
  );
  const limits = new RedisLimits(hub.redis, config.redisPrefix);
  const counter = new RedisPresenceCounter(hub.redis, hub.origin, log, {
    namespace: config.redisPrefix,
    ttlMs: config.presenceTtlMs,
    sweepMs: config.presenceSweepMs,
    ...presenceOpts,
  });
  await counter.start();
  const presence = new PresenceTracker(stores.store, stores.social, hub, counter);
  counter.onOffline = (userId) => presence.wentOffline(userId);
  const writePace = new WritePace(limits, rl.userWritesPerSecond, rl.userWriteBurst, 8);
  return { hub, presence, limits, writePace, redis: hub.redis, instance: hub.origin };
}

export async function openServices(config: Config, log: FastifyBaseLogger, opts: ServiceOptions = {}) {
  const db = await openDb({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    sqliteSynchronous: config.sqliteSynchronous,
    ...(opts.sqliteFile ? { sqliteFile: opts.sqliteFile } : {}),
    ...(opts.pgSchema || config.databaseSchema ? { pgSchema: opts.pgSchema ?? config.databaseSchema ?? '' } : {}),
    applicationName: serverApplicationName(opts.pgSchema ?? config.databaseSchema),
  });
  // `restore` refuses to write under a running server (running-server.ts).
  const unmark = db.engine === 'sqlite' && !opts.sqliteFile ? markSqliteServer(config.dataDir) : () => {};
  const applied = await migrate(db);
  if (applied.length) log.info({ applied, engine: db.engine }, 'migrations applied');
  const store = new AccountStore(db);
  const adminHolder = await store.userByEmail(config.adminEmail);
  if (adminHolder) warnUnverifiedAdmin(log, adminHolder);
  const mailer: Mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, dataDir: config.dataDir, log });
  // Several processes on one PostgreSQL must sign sessions alike: without SESSION_SECRET
  // they share the secret the first one stored in the database.
  const sessionSecret =
    config.databaseUrl && !config.sessionSecretFromEnv
      ? await store.sharedSetting('internal:sessionSecret', config.sessionSecret)
      : config.sessionSecret;
  const https = config.publicUrl.startsWith('https://');
  const metrics = new Metrics();
  const onCommit = (jobs: number) => metrics.groupCommitJobs.observe(jobs);
  const chat = new ChatStore(db.kysely, chatWrites(db, onCommit));
  const social = new SocialStore(db.kysely);
  const shared = await openShared(config, log, db, { store, social }, metrics, opts.presence);
  shared.hub.onResync(() => metrics.redisReconnects.inc());
  const pushes = new PushStore(db.kysely);
  // Without VAPID keys in the environment, the first process makes them and all share them.
  const vapid: VapidKeys =
    config.vapid ?? JSON.parse(await store.sharedSetting('internal:vapid', JSON.stringify(generateVapidKeys())));
  const push = new PushSender({
    store: pushes,
    isOnline: (userId) => shared.presence.isOnline(userId),
    vapid,
    subject: config.vapidSubject,
    ca: config.pushCa,
    log,
  });
  return {
    db,
    metrics,
    store,
    chat,
    social,
    pins: new PinStore(db.kysely),
    attachments: new Attachments(new AttachmentStore(db.kysely), await openBlobStore(config), {
      maxBytes: config.attachmentMaxBytes,
      quotaBytes: config.attachmentQuotaBytes,
    }),
    notices: new NotificationStore(db.kysely),
    keys: new KeyStore(db.kysely),
    pushes,
    push,
    vapidPublicKey: vapid.publicKey,
    mailer,
    sessionSecret,
    https,
    sessions: new Sessions(store, sessionSecret, https),
    ...shared,
    /** After the HTTP server: presence, fan-out, the mail queue, then the database. */
    async close(): Promise<void> {
      await shared.presence.close();
      await shared.hub.close();
      await push.idle();
      await mailer.drain();
      await db.close();
      unmark();
    },
  };
}
export type Services = Awaited<ReturnType<typeof openServices>>;

/** The setting each readiness check writes (the database must take writes, not only reads). */
const PROBE_KEY = 'internal:readyz';

/** What /readyz checks of the services (http/health.ts): the database takes a write, every migration has run, Redis answers. */
export function healthSourceOf(s: Services): HealthSource {
  const { db, redis } = s;
  return {
    version: VERSION,
    engine: db.engine,
    instance: s.instance,
    mail: s.mailer.mode,
    database: () =>
      db.kysely
        .insertInto('settings')
        .values({ key: PROBE_KEY, value: String(Date.now()) })
        .onConflict((oc) => oc.column('key').doUpdateSet({ value: (eb) => eb.ref('excluded.value') }))
        .execute(),
    migrations: async () => {
      const pending = await pendingMigrations(db);
      if (pending.length > 0) throw new Error(`not applied: ${pending.join(', ')}`);
    },
    redis: redis ? () => redis.ping() : null,
  };
}

/** Every setting the server reads, from the environment, with embedded defaults. */
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_PUSH_ENDPOINTS } from './push/endpoints.ts';

/**
 * Attempt limits (see README "Security"). Sign-in attempts are counted per window in
 * tiers; a browser the account has signed in from before (device cookie) is judged only
 * by its own count, so strangers' failures never lock the owner out.
 */
export interface RateLimits {
  /** Failed sign-ins per account from one address in `windowMs`; then that address is refused. */
  signInPerAccountIp: number;
  /** Sign-in attempts per account in `windowMs` from unknown browsers before they are slowed down. */
  signInPerAccount: number;
  /** Slowed down: one attempt per account every `signInSlowMs`; others wait their turn… */
  signInSlowMs: number;
  /** …up to this long, and beyond it are refused. */
  signInQueueMs: number;
  /** Failed sign-ins from a browser the account knows before it counts as unknown. */
  signInPerDevice: number;
  /** Failed sign-ins per IP in `windowMs`, whatever the account (spraying). */
  signInPerIp: number;
  /** Accounts created per IP in 4 × `windowMs` (an hour by default). */
  signUpPerIp: number;
  /** Verification / reset e-mails per account and per IP. */
  mailPerAccount: number;
  mailPerIp: number;
  windowMs: number;
  /** Every API request per IP per minute. */
  apiPerMinute: number;
  /** Writes (messages, edits, deletions, receipts, flags, typing…) one user may make per second on average, across all their sockets and processes… */
  userWritesPerSecond: number;
  /** …and in a burst. */
  userWriteBurst: number;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  publicUrl: string;
  /** PUBLIC_URL was given: requests must come from its origin (see security/origin.ts). */
  publicUrlFromEnv: boolean;
  /** Further origins the API and the WebSocket accept (ALLOWED_ORIGINS, comma-separated). */
  allowedOrigins: string[];
  adminEmail: string;
  smtpUrl: string | null;
  mailFrom: string;
  databaseUrl: string | null;
  /** PostgreSQL schema to use (created if missing); default: the connection's search_path. */
  databaseSchema: string | null;
  redisUrl: string | null;
  /** Namespace of every Redis key and channel (several deployments may share a Redis). */
  redisPrefix: string;
  /**
   * With Redis: a process that stops renewing its heartbeat for this long counts as dead,
   * and every `presenceSweepMs` the others look for dead ones. Their users are shown
   * offline within presenceTtlMs + presenceSweepMs.
   */
  presenceTtlMs: number;
  presenceSweepMs: number;
  /** Frames each socket may send: this many a second on average, bursts up to wsBurst. */
  wsFramesPerSecond: number;
  wsBurst: number;
  /** A socket that has not said hello within this is closed. */
  wsHelloTimeoutMs: number;
  /** On SIGTERM, how long /readyz answers 503 while the server still serves, before it stops accepting. */
  shutdownDrainMs: number;
  sessionSecret: string;
  /**
   * SESSION_SECRET was given. Without it, the secret is a file in DATA_DIR; with
   * DATABASE_URL, every process then adopts the one the first process stored there.
   */
  sessionSecretFromEnv: boolean;
  webDist: string | null;
  logLevel: string;
  trustProxy: boolean;
  rateLimits: RateLimits;
  /** How recent a sign-in must be to delete the account. */
  reauthWindowMs: number;
  /** The image-upload site the profile's Upload button opens (http/https). */
  uploadUrl: string;
  /**
   * log2 of scrypt's N for new passwords (KDF_COST, 10 to 20, default 17: 128 MiB). Browsers
   * derive with it; the server refuses credentials made with less.
   */
  kdfCost: number;
  /**
   * Push services the server may send Web Push to: the browsers' own, plus PUSH_ENDPOINTS
   * (comma-separated URL prefixes, `https://*.example.com/` for subdomains).
   */
  pushEndpoints: string[];
  /** Further CAs (PEM) push services' certificates may chain to (PUSH_CA_FILE: a self-hosted push service). */
  pushCa: string | null;
  /** VAPID keys (VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY); without them, made once and kept in the database. */
  vapid: { publicKey: string; privateKey: string } | null;
  /** The contact push services see (VAPID_SUBJECT; default mailto:ADMIN_EMAIL). */
  vapidSubject: string;
}

export const DEFAULT_UPLOAD_URL = 'https://postimages.org/';
export const DEFAULT_KDF_COST = 17;

function httpUrl(name: string, value: string | undefined, fallback: string): string {
  if (value === undefined || value === '') return fallback;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} must be an http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${name} must be an http(s) URL`);
  return url.href;
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
}

function vapidFrom(env: NodeJS.ProcessEnv): Config['vapid'] {
  const publicKey = env.VAPID_PUBLIC_KEY ?? '';
  const privateKey = env.VAPID_PRIVATE_KEY ?? '';
  if (!publicKey && !privateKey) return null;
  if (!/^[A-Za-z0-9_-]{87}$/.test(publicKey) || !/^[A-Za-z0-9_-]{43}$/.test(privateKey)) {
    throw new Error(
      'VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY must both be set, base64url P-256 keys (npx web-push generate-vapid-keys)',
    );
  }
  return { publicKey, privateKey };
}

export const DEFAULT_RATE_LIMITS: RateLimits = {
  signInPerAccountIp: 5,
  signInPerAccount: 10,
  signInSlowMs: 5_000,
  signInQueueMs: 15_000,
  signInPerDevice: 10,
  signInPerIp: 30,
  signUpPerIp: 10,
  mailPerAccount: 3,
  mailPerIp: 20,
  windowMs: 15 * 60 * 1000,
  apiPerMinute: 600,
  userWritesPerSecond: 20,
  userWriteBurst: 100,
};

function int(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`Expected a whole number, got "${value}"`);
  return n;
}

/** A random secret kept in DATA_DIR, so sessions survive restarts without any set-up. */
/**
 * The session secret in the data folder, made on first start. Several processes starting
 * at once on a new folder agree on one: each writes its candidate to a file of its own and
 * links it into place, which only the first link does (a reader never sees a half-written file).
 */
export function loadOrCreateSecret(dataDir: string): string {
  const file = path.join(dataDir, 'session-secret');
  if (!existsSync(file)) {
    const candidate = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
    writeFileSync(candidate, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
    try {
      linkSync(candidate, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      rmSync(candidate, { force: true });
    }
  }
  return readFileSync(file, 'utf8').trim();
}

const HERE = path.dirname(new URL(import.meta.url).pathname);
export const DEFAULT_WEB_DIST = path.resolve(HERE, '../../web/dist');

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const port = int(env.PORT, 3000);
  const dataDir = path.resolve(env.DATA_DIR ?? 'data');
  mkdirSync(dataDir, { recursive: true });
  const adminEmail = (env.ADMIN_EMAIL ?? 'admin@example.com').trim().toLowerCase();
  const publicUrl = (env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const limits: RateLimits = {
    signInPerAccountIp: int(env.RATE_LIMIT_SIGNIN_PER_ACCOUNT_IP, DEFAULT_RATE_LIMITS.signInPerAccountIp),
    signInPerAccount: int(env.RATE_LIMIT_SIGNIN_PER_ACCOUNT, DEFAULT_RATE_LIMITS.signInPerAccount),
    signInSlowMs: int(env.RATE_LIMIT_SIGNIN_SLOW_MS, DEFAULT_RATE_LIMITS.signInSlowMs),
    signInQueueMs: int(env.RATE_LIMIT_SIGNIN_QUEUE_MS, DEFAULT_RATE_LIMITS.signInQueueMs),
    signInPerDevice: int(env.RATE_LIMIT_SIGNIN_PER_DEVICE, DEFAULT_RATE_LIMITS.signInPerDevice),
    signInPerIp: int(env.RATE_LIMIT_SIGNIN_PER_IP, DEFAULT_RATE_LIMITS.signInPerIp),
    signUpPerIp: int(env.RATE_LIMIT_SIGNUP_PER_IP, DEFAULT_RATE_LIMITS.signUpPerIp),
    mailPerAccount: int(env.RATE_LIMIT_MAIL_PER_ACCOUNT, DEFAULT_RATE_LIMITS.mailPerAccount),
    mailPerIp: int(env.RATE_LIMIT_MAIL_PER_IP, DEFAULT_RATE_LIMITS.mailPerIp),
    windowMs: int(env.RATE_LIMIT_WINDOW_MS, DEFAULT_RATE_LIMITS.windowMs),
    apiPerMinute: int(env.RATE_LIMIT_API_PER_MINUTE, DEFAULT_RATE_LIMITS.apiPerMinute),
    userWritesPerSecond: int(env.RATE_LIMIT_USER_WRITES_PER_SECOND, DEFAULT_RATE_LIMITS.userWritesPerSecond),
    userWriteBurst: int(env.RATE_LIMIT_USER_WRITE_BURST, DEFAULT_RATE_LIMITS.userWriteBurst),
  };
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    dataDir,
    publicUrl,
    publicUrlFromEnv: Boolean(env.PUBLIC_URL),
    allowedOrigins: (env.ALLOWED_ORIGINS ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean)
      .map((o) => new URL(httpUrl('ALLOWED_ORIGINS', o, o)).origin),
    adminEmail,
    smtpUrl: env.SMTP_URL || null,
    mailFrom: env.MAIL_FROM ?? 'Parley <no-reply@localhost>',
    databaseUrl: env.DATABASE_URL || null,
    databaseSchema: env.DATABASE_SCHEMA || null,
    redisUrl: env.REDIS_URL || null,
    redisPrefix: env.REDIS_PREFIX || 'parley',
    presenceTtlMs: int(env.PRESENCE_TTL_MS, 15_000),
    presenceSweepMs: int(env.PRESENCE_SWEEP_MS, 5_000),
    wsFramesPerSecond: int(env.WS_FRAMES_PER_SECOND, 20),
    wsBurst: int(env.WS_BURST, 100),
    wsHelloTimeoutMs: int(env.WS_HELLO_TIMEOUT_MS, 5_000),
    shutdownDrainMs: int(env.SHUTDOWN_DRAIN_MS, 0),
    sessionSecret: env.SESSION_SECRET || loadOrCreateSecret(dataDir),
    sessionSecretFromEnv: Boolean(env.SESSION_SECRET),
    webDist: env.WEB_DIST === '' ? null : path.resolve(env.WEB_DIST ?? DEFAULT_WEB_DIST),
    logLevel: env.LOG_LEVEL ?? 'info',
    trustProxy: env.TRUST_PROXY === '1' || env.TRUST_PROXY === 'true',
    rateLimits: limits,
    reauthWindowMs: int(env.REAUTH_WINDOW_MS, 10 * 60 * 1000),
    uploadUrl: httpUrl('UPLOAD_URL', env.UPLOAD_URL, DEFAULT_UPLOAD_URL),
    kdfCost: Math.min(20, Math.max(10, int(env.KDF_COST, DEFAULT_KDF_COST))),
    pushEndpoints: [...DEFAULT_PUSH_ENDPOINTS, ...list(env.PUSH_ENDPOINTS).map((u) => httpUrl('PUSH_ENDPOINTS', u, u))],
    pushCa: env.PUSH_CA_FILE ? readFileSync(env.PUSH_CA_FILE, 'utf8') : null,
    vapid: vapidFrom(env),
    vapidSubject: env.VAPID_SUBJECT || `mailto:${adminEmail}`,
    ...overrides,
  };
}

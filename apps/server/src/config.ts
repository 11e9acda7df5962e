/** Every setting the server reads, from the environment, with embedded defaults. */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface RateLimits {
  /** Failed sign-ins allowed per account in `windowMs` before it is refused. */
  signInPerAccount: number;
  /** Failed sign-ins allowed per IP in `windowMs`. */
  signInPerIp: number;
  signUpPerIp: number;
  /** Verification / reset e-mails per account and per IP. */
  mailPerAccount: number;
  mailPerIp: number;
  windowMs: number;
  /** Every API request per IP per minute. */
  apiPerMinute: number;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  publicUrl: string;
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
}

export const DEFAULT_UPLOAD_URL = 'https://postimages.org/';

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

export const DEFAULT_RATE_LIMITS: RateLimits = {
  signInPerAccount: 5,
  signInPerIp: 30,
  signUpPerIp: 10,
  mailPerAccount: 3,
  mailPerIp: 20,
  windowMs: 15 * 60 * 1000,
  apiPerMinute: 600,
};

function int(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`Expected a whole number, got "${value}"`);
  return n;
}

/** A random secret kept in DATA_DIR, so sessions survive restarts without any set-up. */
function loadOrCreateSecret(dataDir: string): string {
  const file = path.join(dataDir, 'session-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

const HERE = path.dirname(new URL(import.meta.url).pathname);
export const DEFAULT_WEB_DIST = path.resolve(HERE, '../../web/dist');

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const port = int(env.PORT, 3000);
  const dataDir = path.resolve(env.DATA_DIR ?? 'data');
  mkdirSync(dataDir, { recursive: true });
  const publicUrl = (env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const limits: RateLimits = {
    signInPerAccount: int(env.RATE_LIMIT_SIGNIN_PER_ACCOUNT, DEFAULT_RATE_LIMITS.signInPerAccount),
    signInPerIp: int(env.RATE_LIMIT_SIGNIN_PER_IP, DEFAULT_RATE_LIMITS.signInPerIp),
    signUpPerIp: int(env.RATE_LIMIT_SIGNUP_PER_IP, DEFAULT_RATE_LIMITS.signUpPerIp),
    mailPerAccount: int(env.RATE_LIMIT_MAIL_PER_ACCOUNT, DEFAULT_RATE_LIMITS.mailPerAccount),
    mailPerIp: int(env.RATE_LIMIT_MAIL_PER_IP, DEFAULT_RATE_LIMITS.mailPerIp),
    windowMs: int(env.RATE_LIMIT_WINDOW_MS, DEFAULT_RATE_LIMITS.windowMs),
    apiPerMinute: int(env.RATE_LIMIT_API_PER_MINUTE, DEFAULT_RATE_LIMITS.apiPerMinute),
  };
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    dataDir,
    publicUrl,
    adminEmail: (env.ADMIN_EMAIL ?? 'admin@example.com').trim().toLowerCase(),
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
    sessionSecret: env.SESSION_SECRET || loadOrCreateSecret(dataDir),
    sessionSecretFromEnv: Boolean(env.SESSION_SECRET),
    webDist: env.WEB_DIST === '' ? null : path.resolve(env.WEB_DIST ?? DEFAULT_WEB_DIST),
    logLevel: env.LOG_LEVEL ?? 'info',
    trustProxy: env.TRUST_PROXY === '1' || env.TRUST_PROXY === 'true',
    rateLimits: limits,
    reauthWindowMs: int(env.REAUTH_WINDOW_MS, 10 * 60 * 1000),
    uploadUrl: httpUrl('UPLOAD_URL', env.UPLOAD_URL, DEFAULT_UPLOAD_URL),
    ...overrides,
  };
}

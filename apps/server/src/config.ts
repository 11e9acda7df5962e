/** Every setting the server reads, from the environment, with embedded defaults. */
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Encrypter } from 'age-encryption';
import type { S3Settings } from './attachments/s3-blob-store.ts';
import { DEFAULT_UPLOAD_URL, RATE_LIMIT_VARS, type RateLimits } from './config-options.ts';
import { EnvReader } from './env-reader.ts';
import { DEFAULT_PUSH_ENDPOINTS } from './push/endpoints.ts';

/**
 * Attempt limits (see README "Security"). Sign-in attempts are counted per window in
 * tiers; a browser the account has signed in from before (device cookie) is judged only
 * by its own count, so strangers' failures never lock the owner out. Each is a RATE_LIMIT_*
 * variable of the configuration table.
 */
export type { RateLimits } from './config-options.ts';
export { DEFAULT_KDF_COST, DEFAULT_RATE_LIMITS, DEFAULT_UPLOAD_URL } from './config-options.ts';

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
  /** SQLite's synchronous setting: `full` (acknowledged means on disk) or `normal`. */
  sqliteSynchronous: SqliteSynchronous;
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
  /** /metrics is served to this bearer token (METRICS_TOKEN); null: not served. */
  metricsToken: string | null;
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
  /** REQUIRE_2FA: every sign-in passes a second step (protocol two-factor.ts). */
  require2fa: boolean;
  /** LEGACY_PASSWORDS: may accounts from before end-to-end encryption send their password (once)? */
  legacyPasswords: 'auto' | 'on' | 'off';
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
  /** The largest file one may attach (bytes, before sealing). */
  attachmentMaxBytes: number;
  /** The bytes of attachments each user may keep. */
  attachmentQuotaBytes: number;
  /** Where attachments are kept (ATTACHMENT_DIR, default DATA_DIR/attachments), unless `s3` is set. */
  attachmentDir: string;
  /** S3-compatible object storage for attachments (S3_BUCKET and the other S3_* settings); null: ATTACHMENT_DIR. */
  s3: S3Settings | null;
  /** Where `backup --upload` puts backups (BACKUP_S3_*); null: nowhere. */
  backupS3: S3Settings | null;
  /** The age public keys backups are encrypted to (BACKUP_AGE_RECIPIENTS); none: not encrypted. */
  backupAgeRecipients: string[];
  /** VAPID keys (VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY); without them, made once and kept in the database. */
  vapid: { publicKey: string; privateKey: string } | null;
  /** The contact push services see (VAPID_SUBJECT; default mailto:ADMIN_EMAIL). */
  vapidSubject: string;
}

/** The S3_* settings; null without S3_BUCKET (and then none of them may be set). */
/** S3 settings from the variables starting with `p` (S3_ for attachments, BACKUP_S3_ for backups). */
function s3Of(v: EnvReader, p: 'S3_' | 'BACKUP_S3_'): S3Settings | null {
  const bucket = v.optional(`${p}BUCKET`);
  const url = v.optional(`${p}URL`);
  const accessKeyId = v.optional(`${p}ACCESS_KEY_ID`);
  const secretAccessKey = v.optional(`${p}SECRET_ACCESS_KEY`);
  const region = v.string(`${p}REGION`);
  const prefix = v.string(`${p}PREFIX`);
  if (!bucket) {
    if (url || accessKeyId || secretAccessKey) throw new Error(`${p}URL and ${p}ACCESS_KEY_ID need ${p}BUCKET`);
    return null;
  }
  if (!accessKeyId !== !secretAccessKey) {
    throw new Error(`${p}ACCESS_KEY_ID and ${p}SECRET_ACCESS_KEY go together`);
  }
  return {
    bucket,
    url: url ? httpUrl(`${p}URL`, url, url) : null,
    region,
    // A folder of the bucket: `parley` is `parley/`.
    prefix: prefix.endsWith('/') ? prefix : `${prefix}/`,
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : null,
  };
}

/** BACKUP_AGE_RECIPIENTS: age public keys (X25519 `age1…`, or post-quantum `age1pq1…`). */
function ageRecipientsOf(v: EnvReader): string[] {
  const keys = v.list('BACKUP_AGE_RECIPIENTS');
  for (const k of keys) {
    try {
      // The age library's own reading of a recipient (bech32, its checksum and its type).
      new Encrypter().addRecipient(k);
    } catch {
      throw new Error(`BACKUP_AGE_RECIPIENTS: "${k}" is not an age public key (age1…, as age-keygen prints it)`);
    }
  }
  return keys;
}

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

function legacyPasswordsOf(value: string): Config['legacyPasswords'] {
  const v = value.toLowerCase();
  if (v !== 'auto' && v !== 'on' && v !== 'off')
    throw new Error(`LEGACY_PASSWORDS must be auto, on or off, got "${value}"`);
  return v;
}

export type SqliteSynchronous = 'full' | 'normal';

function sqliteSynchronousOf(value: string): SqliteSynchronous {
  const v = value.toLowerCase();
  if (v !== 'full' && v !== 'normal') throw new Error(`SQLITE_SYNCHRONOUS must be full or normal, got "${value}"`);
  return v;
}

function vapidFrom(publicKey: string, privateKey: string): Config['vapid'] {
  if (!publicKey && !privateKey) return null;
  if (!/^[A-Za-z0-9_-]{87}$/.test(publicKey) || !/^[A-Za-z0-9_-]{43}$/.test(privateKey)) {
    throw new Error(
      'VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY must both be set, base64url P-256 keys (npx web-push generate-vapid-keys)',
    );
  }
  return { publicKey, privateKey };
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

/** The data folder's session secret if it has one, else ''. */
function existingSecret(dataDir: string): string {
  const file = path.join(dataDir, 'session-secret');
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
}

const HERE = path.dirname(new URL(import.meta.url).pathname);
export const DEFAULT_WEB_DIST = path.resolve(HERE, '../../web/dist');

/**
 * The configuration the environment gives. With `create: false` (admin commands that need an
 * existing deployment) nothing is written: no DATA_DIR made, no session secret made (an
 * empty one when there is none).
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<Config> = {},
  { create = true }: { create?: boolean } = {},
): Config {
  const v = new EnvReader(env);
  const port = v.int('PORT');
  const dataDir = path.resolve(v.string('DATA_DIR'));
  // Only the server's user reads it: the database, the session secret, the attachments.
  if (create) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const adminEmail = v.string('ADMIN_EMAIL').trim().toLowerCase();
  const publicUrl = (v.optional('PUBLIC_URL') ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const rateLimits = Object.fromEntries(
    (Object.keys(RATE_LIMIT_VARS) as (keyof RateLimits)[]).map((k) => [k, v.int(RATE_LIMIT_VARS[k])]),
  ) as RateLimits;
  const webDist = v.raw('WEB_DIST');
  const sessionSecret = v.optional('SESSION_SECRET');
  const pushCaFile = v.optional('PUSH_CA_FILE');
  return {
    port,
    host: v.string('HOST'),
    dataDir,
    publicUrl,
    publicUrlFromEnv: v.optional('PUBLIC_URL') !== null,
    allowedOrigins: v.list('ALLOWED_ORIGINS').map((o) => new URL(httpUrl('ALLOWED_ORIGINS', o, o)).origin),
    adminEmail,
    smtpUrl: v.optional('SMTP_URL'),
    mailFrom: v.string('MAIL_FROM'),
    databaseUrl: v.optional('DATABASE_URL'),
    databaseSchema: v.optional('DATABASE_SCHEMA'),
    sqliteSynchronous: sqliteSynchronousOf(v.string('SQLITE_SYNCHRONOUS')),
    redisUrl: v.optional('REDIS_URL'),
    redisPrefix: v.string('REDIS_PREFIX'),
    presenceTtlMs: v.int('PRESENCE_TTL_MS'),
    presenceSweepMs: v.int('PRESENCE_SWEEP_MS'),
    wsFramesPerSecond: v.int('WS_FRAMES_PER_SECOND'),
    wsBurst: v.int('WS_BURST'),
    wsHelloTimeoutMs: v.int('WS_HELLO_TIMEOUT_MS'),
    shutdownDrainMs: v.int('SHUTDOWN_DRAIN_MS'),
    metricsToken: v.optional('METRICS_TOKEN'),
    sessionSecret: sessionSecret ?? (create ? loadOrCreateSecret(dataDir) : existingSecret(dataDir)),
    sessionSecretFromEnv: sessionSecret !== null,
    webDist: webDist === '' ? null : path.resolve(webDist ?? DEFAULT_WEB_DIST),
    logLevel: v.string('LOG_LEVEL'),
    trustProxy: v.bool('TRUST_PROXY'),
    rateLimits,
    reauthWindowMs: v.int('REAUTH_WINDOW_MS'),
    require2fa: v.bool('REQUIRE_2FA'),
    legacyPasswords: legacyPasswordsOf(v.string('LEGACY_PASSWORDS')),
    uploadUrl: httpUrl('UPLOAD_URL', v.optional('UPLOAD_URL') ?? undefined, DEFAULT_UPLOAD_URL),
    kdfCost: Math.min(20, Math.max(10, v.int('KDF_COST'))),
    pushEndpoints: [...DEFAULT_PUSH_ENDPOINTS, ...v.list('PUSH_ENDPOINTS').map((u) => httpUrl('PUSH_ENDPOINTS', u, u))],
    pushCa: pushCaFile ? readFileSync(pushCaFile, 'utf8') : null,
    attachmentMaxBytes: v.int('ATTACHMENT_MAX_BYTES'),
    attachmentQuotaBytes: v.int('ATTACHMENT_QUOTA_BYTES'),
    attachmentDir: path.resolve(v.optional('ATTACHMENT_DIR') ?? path.join(dataDir, 'attachments')),
    s3: s3Of(v, 'S3_'),
    backupS3: s3Of(v, 'BACKUP_S3_'),
    backupAgeRecipients: ageRecipientsOf(v),
    vapid: vapidFrom(v.optional('VAPID_PUBLIC_KEY') ?? '', v.optional('VAPID_PRIVATE_KEY') ?? ''),
    vapidSubject: v.optional('VAPID_SUBJECT') ?? `mailto:${adminEmail}`,
    ...overrides,
  };
}

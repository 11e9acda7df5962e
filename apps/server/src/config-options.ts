/**
 * The one table of the server's settings: each environment variable with its type, default and
 * meaning. loadConfig (config.ts) reads nothing that is not here and takes its defaults from
 * here; `npm start -- --help`, `.env.example` and the README's configuration table are made
 * from it (config-docs.ts), and a test keeps the last two in step.
 */

export type OptionType = 'int' | 'string' | 'url' | 'bool' | 'list' | 'file' | 'secret';

export interface ConfigOption {
  name: string;
  type: OptionType;
  /** The value without the variable (null: unset, off); `shown` when it is computed. */
  default: string | number | boolean | null;
  shown?: string;
  doc: string;
}

/** Attempt limits: each the default of its RATE_LIMIT_* variable (README "Limits"). */
export const DEFAULT_RATE_LIMITS = {
  signInPerAccountIp: 5,
  signInPerAccount: 10,
  signInSlowMs: 5_000,
  signInQueueMs: 15_000,
  signInPerDevice: 10,
  signInPerIp: 30,
  signUpPerIp: 10,
  mailPerAccount: 3,
  mailPerIp: 20,
  exportsPerAccount: 5,
  windowMs: 15 * 60 * 1000,
  apiPerMinute: 600,
  userWritesPerSecond: 20,
  userWriteBurst: 100,
};
export type RateLimits = typeof DEFAULT_RATE_LIMITS;

export const DEFAULT_UPLOAD_URL = 'https://postimages.org/';
export const DEFAULT_KDF_COST = 17;

/** The RATE_LIMIT_* variable of each limit. */
export const RATE_LIMIT_VARS: Record<keyof RateLimits, string> = {
  signInPerAccountIp: 'RATE_LIMIT_SIGNIN_PER_ACCOUNT_IP',
  signInPerAccount: 'RATE_LIMIT_SIGNIN_PER_ACCOUNT',
  signInSlowMs: 'RATE_LIMIT_SIGNIN_SLOW_MS',
  signInQueueMs: 'RATE_LIMIT_SIGNIN_QUEUE_MS',
  signInPerDevice: 'RATE_LIMIT_SIGNIN_PER_DEVICE',
  signInPerIp: 'RATE_LIMIT_SIGNIN_PER_IP',
  signUpPerIp: 'RATE_LIMIT_SIGNUP_PER_IP',
  mailPerAccount: 'RATE_LIMIT_MAIL_PER_ACCOUNT',
  mailPerIp: 'RATE_LIMIT_MAIL_PER_IP',
  exportsPerAccount: 'RATE_LIMIT_EXPORTS_PER_ACCOUNT',
  windowMs: 'RATE_LIMIT_WINDOW_MS',
  apiPerMinute: 'RATE_LIMIT_API_PER_MINUTE',
  userWritesPerSecond: 'RATE_LIMIT_USER_WRITES_PER_SECOND',
  userWriteBurst: 'RATE_LIMIT_USER_WRITE_BURST',
};

const RATE_LIMIT_DOCS: Record<keyof RateLimits, string> = {
  signInPerAccountIp: 'wrong sign-ins with one login from one address in a window; then that address is refused for it',
  signInPerAccount: 'sign-in attempts with one login from unknown browsers in a window before they are slowed down',
  signInSlowMs: 'slowed down: one attempt per login every this many ms',
  signInQueueMs: 'slowed attempts wait their turn up to this many ms, then are refused',
  signInPerDevice: 'wrong sign-ins from a browser the account knows (device cookie) before it counts as unknown',
  signInPerIp: 'wrong sign-ins from one address, any account, in a window',
  signUpPerIp: 'accounts created from one address in four windows (an hour by default)',
  mailPerAccount: 'verification and reset e-mails per account in a window',
  mailPerIp: 'verification and reset e-mails per address in a window',
  exportsPerAccount: '"Download my data" exports per account in a window',
  windowMs: 'the window of the limits above (ms)',
  apiPerMinute: 'API requests per address per minute',
  userWritesPerSecond:
    'writes (messages, edits, receipts, typing…) one user may make per second on average, across sockets and processes',
  userWriteBurst: '…and in a burst',
};

export const CONFIG_OPTIONS: readonly ConfigOption[] = [
  { name: 'PORT', type: 'int', default: 3000, doc: 'HTTP port (web app, API and WebSocket)' },
  { name: 'HOST', type: 'string', default: '0.0.0.0', doc: 'interface to listen on' },
  {
    name: 'DATA_DIR',
    type: 'string',
    default: 'data',
    shown: './data',
    doc: 'SQLite database, e-mail outbox, generated session secret',
  },
  {
    name: 'PUBLIC_URL',
    type: 'url',
    default: null,
    shown: 'http://localhost:$PORT',
    doc: 'the address users reach; used in e-mail links and the same-origin check: once set, requests must come from its origin (not just from the host they name). With `https://`, cookies are `Secure` and HSTS is sent',
  },
  {
    name: 'ALLOWED_ORIGINS',
    type: 'list',
    default: null,
    doc: 'further origins (comma-separated) the API and the WebSocket accept, e.g. a second hostname; `npm run cluster` gives each process its own address',
  },
  {
    name: 'ADMIN_EMAIL',
    type: 'string',
    default: 'admin@example.com',
    doc: "the administrator's e-mail. That account is the administrator once the address is verified. The default cannot receive mail, so nobody is administrator until you set it",
  },
  {
    name: 'SMTP_URL',
    type: 'secret',
    default: null,
    doc: 'e.g. `smtps://user:pass@smtp.example.com:465`. Unset: mail goes to the outbox',
  },
  { name: 'MAIL_FROM', type: 'string', default: 'Parley <no-reply@localhost>', doc: 'sender of every e-mail' },
  { name: 'DATABASE_URL', type: 'secret', default: null, doc: '`postgres://…` to use PostgreSQL instead of SQLite' },
  { name: 'DATABASE_SCHEMA', type: 'string', default: null, doc: 'PostgreSQL schema to use (created if missing)' },
  {
    name: 'SQLITE_SYNCHRONOUS',
    type: 'string',
    default: 'full',
    doc: 'SQLite only. `full`: a message is acknowledged once it is on disk (one fsync per commit, and a commit serves a whole group of sends), so it survives a power cut or an operating-system crash, as on PostgreSQL. `normal`: it survives the server being killed, but the last moments of acknowledged messages can be lost in a power cut; a little more throughput',
  },
  {
    name: 'REDIS_URL',
    type: 'secret',
    default: null,
    doc: '`redis://…` to run several server processes: events, presence, typing and admin actions travel between them',
  },
  {
    name: 'REDIS_PREFIX',
    type: 'string',
    default: 'parley',
    doc: 'namespace of every Redis key and channel, so deployments can share a Redis',
  },
  {
    name: 'PRESENCE_TTL_MS',
    type: 'int',
    default: 15_000,
    doc: 'with Redis: a process silent this long counts as dead; its users go offline at the next sweep',
  },
  { name: 'PRESENCE_SWEEP_MS', type: 'int', default: 5_000, doc: 'with Redis: how often processes look for dead ones' },
  {
    name: 'SESSION_SECRET',
    type: 'secret',
    default: null,
    shown: 'generated',
    doc: 'key of the HMAC under which session and e-mail tokens are stored. Without it, SQLite deployments keep one in `DATA_DIR/session-secret`; with `DATABASE_URL`, the first process stores its secret in the database and every other process adopts it',
  },
  {
    name: 'ATTACHMENT_MAX_BYTES',
    type: 'int',
    default: 100 * 1024 * 1024,
    shown: '104857600 (100 MB)',
    doc: 'the largest file (photo, file, voice message) one may attach, in bytes',
  },
  {
    name: 'ATTACHMENT_QUOTA_BYTES',
    type: 'int',
    default: 2 * 1024 * 1024 * 1024,
    shown: '2147483648 (2 GB)',
    doc: "how many bytes of attachments each user may keep on the server; a deleted message's or an unsent upload's come back",
  },
  {
    name: 'ATTACHMENT_DIR',
    type: 'string',
    default: null,
    shown: '$DATA_DIR/attachments',
    doc: 'where attachments (sealed blobs: the server cannot open them) are kept, unless `S3_BUCKET` is set; every process must see the same directory',
  },
  {
    name: 'S3_BUCKET',
    type: 'string',
    default: null,
    doc: 'keep attachments in this bucket of S3-compatible object storage instead of `ATTACHMENT_DIR` (no shared disk needed between processes)',
  },
  {
    name: 'S3_URL',
    type: 'url',
    default: null,
    shown: "AWS's endpoint for S3_REGION",
    doc: 'the S3-compatible endpoint, e.g. `http://minio:9000` or `https://s3.fr-par.scw.cloud` (path-style requests)',
  },
  { name: 'S3_REGION', type: 'string', default: 'us-east-1', doc: "the bucket's region" },
  {
    name: 'S3_PREFIX',
    type: 'string',
    default: 'attachments/',
    doc: 'where in the bucket the blobs are kept (the start of their keys)',
  },
  {
    name: 'S3_ACCESS_KEY_ID',
    type: 'string',
    default: null,
    shown: "the AWS SDK's (AWS_ACCESS_KEY_ID, an instance role)",
    doc: 'the access key for the bucket; it needs PutObject, GetObject, ListBucket and DeleteObject there',
  },
  {
    name: 'S3_SECRET_ACCESS_KEY',
    type: 'secret',
    default: null,
    doc: 'the secret of `S3_ACCESS_KEY_ID`',
  },
  {
    name: 'REQUIRE_2FA',
    type: 'bool',
    default: false,
    doc: 'every account must pass a second step at sign-in (an authenticator app, a passkey or a recovery code): one without sets up an app at its next sign-in, and none can remove its last way',
  },
  {
    name: 'BACKUP_AGE_RECIPIENTS',
    type: 'list',
    default: null,
    doc: 'age public keys (`age1…`, comma-separated) every `npm run admin -- backup` is encrypted to; open one with `age -d -i key.txt` or restore it with `--identity key.txt`',
  },
  {
    name: 'BACKUP_S3_BUCKET',
    type: 'string',
    default: null,
    doc: 'where `backup --upload` puts each backup (S3-compatible object storage; best not the attachments bucket)',
  },
  {
    name: 'BACKUP_S3_URL',
    type: 'url',
    default: null,
    shown: "AWS's endpoint for BACKUP_S3_REGION",
    doc: "the backup bucket's S3-compatible endpoint (path-style requests)",
  },
  { name: 'BACKUP_S3_REGION', type: 'string', default: 'us-east-1', doc: "the backup bucket's region" },
  {
    name: 'BACKUP_S3_PREFIX',
    type: 'string',
    default: 'parley-backups/',
    doc: 'where in the backup bucket backups go (the start of their keys; `--keep` prunes only there)',
  },
  {
    name: 'BACKUP_S3_ACCESS_KEY_ID',
    type: 'string',
    default: null,
    shown: "the AWS SDK's (AWS_ACCESS_KEY_ID, an instance role)",
    doc: 'the access key for the backup bucket; it needs PutObject, ListBucket and DeleteObject (multipart uploads) there',
  },
  {
    name: 'BACKUP_S3_SECRET_ACCESS_KEY',
    type: 'secret',
    default: null,
    doc: 'the secret of `BACKUP_S3_ACCESS_KEY_ID`',
  },
  { name: 'WS_FRAMES_PER_SECOND', type: 'int', default: 20, doc: 'frames one socket may send per second on average' },
  { name: 'WS_BURST', type: 'int', default: 100, doc: 'frames one socket may send in a burst' },
  {
    name: 'WS_HELLO_TIMEOUT_MS',
    type: 'int',
    default: 5_000,
    doc: 'a socket that has not said hello within this is closed',
  },
  {
    name: 'SHUTDOWN_DRAIN_MS',
    type: 'int',
    default: 0,
    doc: "on SIGTERM, how long `/readyz` answers 503 while the server still serves, before it stops accepting (give it your balancer's health-check interval, e.g. `5000`)",
  },
  {
    name: 'WEB_DIST',
    type: 'string',
    default: null,
    shown: 'apps/web/dist',
    doc: 'the built web app to serve; empty: serve the API only',
  },
  { name: 'LOG_LEVEL', type: 'string', default: 'info', doc: 'pino level: `debug`, `info`, `warn`, `error`, `silent`' },
  {
    name: 'TRUST_PROXY',
    type: 'bool',
    default: false,
    doc: '`1` behind a reverse proxy, so client IPs (rate limits) come from `X-Forwarded-For`',
  },
  {
    name: 'LEGACY_PASSWORDS',
    type: 'string',
    default: 'auto',
    doc: 'whether accounts from before end-to-end encryption may sign in with their password itself, once, to get their keys: `on`, `off`, or `auto` (on when the server starts with such accounts in its database). Switch it `off` once they have all signed in (the server logs at start how many have not): a browser never sends a password for an account it has seen with keys, but one that never signed in with keys would send it to a server that asked',
  },
  {
    name: 'REAUTH_WINDOW_MS',
    type: 'int',
    default: 10 * 60 * 1000,
    doc: 'how recent a sign-in must be to delete the account',
  },
  {
    name: 'UPLOAD_URL',
    type: 'url',
    default: DEFAULT_UPLOAD_URL,
    doc: "the image-upload site the profile's Upload button opens in a new tab (http/https); users paste the picture's link back into Picture URL",
  },
  {
    name: 'KDF_COST',
    type: 'int',
    default: DEFAULT_KDF_COST,
    doc: "log2 of scrypt's N for new passwords (17 to 20; 10 to 16 only for test builds of the web app, as browsers refuse less than OWASP's 17 whatever the server says); browsers derive with it and the server refuses credentials made with less. Raising it slows every sign-in on weak phones",
  },
  {
    name: 'VAPID_PUBLIC_KEY',
    type: 'string',
    default: null,
    shown: 'generated',
    doc: "the server's Web Push public key (`npx web-push generate-vapid-keys`). Without the pair the first start makes one and keeps it in the database, shared by every process; changing it invalidates every browser's push subscription",
  },
  { name: 'VAPID_PRIVATE_KEY', type: 'secret', default: null, shown: 'generated', doc: 'its private key' },
  {
    name: 'VAPID_SUBJECT',
    type: 'string',
    default: null,
    shown: 'mailto:$ADMIN_EMAIL',
    doc: 'the contact push services see in each push (a `mailto:` or `https:` URL)',
  },
  {
    name: 'METRICS_TOKEN',
    type: 'secret',
    default: null,
    doc: 'serves Prometheus metrics at `/metrics` to requests with `Authorization: Bearer <token>`; unset: no `/metrics`',
  },
  {
    name: 'PUSH_ENDPOINTS',
    type: 'list',
    default: null,
    doc: "further push services (comma-separated URL prefixes, `https://*.example.com/` for subdomains) besides the browsers' own (FCM, Mozilla, Apple, Windows); the server sends Web Push nowhere else",
  },
  {
    name: 'PUSH_CA_FILE',
    type: 'file',
    default: null,
    doc: "a PEM file of further CAs a self-hosted push service's certificate chains to",
  },
  ...(Object.keys(RATE_LIMIT_VARS) as (keyof RateLimits)[]).map(
    (k): ConfigOption => ({
      name: RATE_LIMIT_VARS[k],
      type: 'int',
      default: DEFAULT_RATE_LIMITS[k],
      doc: RATE_LIMIT_DOCS[k],
    }),
  ),
];

const BY_NAME = new Map(CONFIG_OPTIONS.map((o) => [o.name, o]));

export function optionOf(name: string): ConfigOption {
  const o = BY_NAME.get(name);
  if (!o) throw new Error(`${name} is not in the configuration table (config-options.ts)`);
  return o;
}

/**
 * A server of the tests' own (its own port and data directory), for tests that need a
 * world no other test writes to: admin broadcasts reach every user of a server, so
 * tests that count or list them cannot share the suite's server with tests (or the
 * admin screens) that post broadcasts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, spawnServer } from '@app/server/spawn';
import Database from 'better-sqlite3';

export interface PrivateServer {
  baseURL: string;
  dataDir: string;
  /** The server's SQLite file, for rows the tests write directly. */
  dbFile: string;
  /** Everything it has printed (its log). */
  output(): string;
  stop(): Promise<void>;
}

export interface PrivateServerOptions {
  /** The web build it serves (WEB_DIST); default: the suite's. */
  webDist?: string;
  /** Default 'warn'. */
  logLevel?: string;
  /** More settings (DATABASE_URL and REDIS_URL put it on PostgreSQL and Redis). */
  env?: Record<string, string>;
  /** The name it is reached by (PUBLIC_URL, baseURL): `localhost` where WebAuthn needs a host name. */
  host?: 'localhost';
}

/** Starts apps/server (serving the same web build as the suite's server) and waits for /healthz. */
export async function startPrivateServer(opts: PrivateServerOptions = {}): Promise<PrivateServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'parley-e2e-'));
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of ['DATABASE_URL', 'SMTP_URL', 'REDIS_URL', 'SESSION_SECRET']) delete env[key];
  const baseURL = `http://${opts.host ?? '127.0.0.1'}:${port}`;
  Object.assign(env, {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    PUBLIC_URL: baseURL,
    ADMIN_EMAIL: 'admin@example.com',
    LOG_LEVEL: opts.logLevel ?? 'warn',
    RATE_LIMIT_SIGNUP_PER_IP: '10000',
    RATE_LIMIT_SIGNIN_PER_IP: '10000',
    RATE_LIMIT_MAIL_PER_IP: '10000',
    RATE_LIMIT_API_PER_MINUTE: '100000',
    ...(opts.webDist ? { WEB_DIST: opts.webDist } : {}),
    ...opts.env,
  });
  const server = await spawnServer({ env, healthz: baseURL }).catch((e: unknown) => {
    rmSync(dataDir, { recursive: true, force: true });
    throw e;
  });
  const stop = async () => {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { baseURL, dataDir, dbFile: path.join(dataDir, 'parley.sqlite'), output: server.output, stop };
}

/** Runs `fn` on the server's database (busy-waiting up to 5 s for the server's writes). */
export function withDb<T>(dbFile: string, fn: (db: Database.Database) => T): T {
  const db = new Database(dbFile);
  try {
    db.pragma('busy_timeout = 5000');
    return fn(db);
  } finally {
    db.close();
  }
}

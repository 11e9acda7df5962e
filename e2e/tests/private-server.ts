/**
 * A server of the tests' own (its own port and data directory), for tests that need a
 * world no other test writes to: admin broadcasts reach every user of a server, so
 * tests that count or list them cannot share the suite's server with tests (or the
 * admin screens) that post broadcasts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface PrivateServer {
  baseURL: string;
  dataDir: string;
  /** The server's SQLite file, for rows the tests write directly. */
  dbFile: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const srv = createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const address = srv.address();
  srv.close();
  await once(srv, 'close');
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Starts apps/server (serving the same web build as the suite's server) and waits for /healthz. */
export async function startPrivateServer(): Promise<PrivateServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'parley-e2e-'));
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of ['DATABASE_URL', 'SMTP_URL', 'REDIS_URL', 'SESSION_SECRET']) delete env[key];
  Object.assign(env, {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    ADMIN_EMAIL: 'admin@example.com',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_SIGNUP_PER_IP: '10000',
    RATE_LIMIT_SIGNIN_PER_IP: '10000',
    RATE_LIMIT_MAIL_PER_IP: '10000',
    RATE_LIMIT_API_PER_MINUTE: '100000',
  });
  const child = spawn(process.execPath, [path.join(ROOT, 'apps/server/src/main.ts')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const baseURL = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopProcess(child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      rmSync(dataDir, { recursive: true, force: true });
      throw new Error(`server exited (${child.exitCode}):\n${output}`);
    }
    const ok = await fetch(`${baseURL}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { baseURL, dataDir, dbFile: path.join(dataDir, 'parley.sqlite'), stop };
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`server did not start on ${port}:\n${output}`);
}

/** SIGTERM (a graceful shutdown), SIGKILL if it takes over 10 s; resolves once the process is gone. */
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
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

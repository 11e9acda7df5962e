/**
 * The real entry point as a child process: it starts on embedded defaults, and SIGTERM
 * lets an in-flight write finish, exits 0, and leaves the data intact for the next start.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { signInBody } from './test/accounts.ts';
import { signUpBody, TestClient } from './test/harness.ts';

const MAIN = path.join(import.meta.dirname, 'main.ts');
const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-main-'));

function start(): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      WEB_DIST: '',
      LOG_LEVEL: 'info',
      // The test's credentials are derived cheaply; the server must accept them.
      KDF_COST: '10',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not start')), 15_000);
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; address?: string };
        if (entry.msg === 'Parley is ready' && entry.address) {
          clearTimeout(timer);
          resolve({ child, url: entry.address, exited });
        }
      } catch {
        // not a log line
      }
    });
    child.on('exit', () => reject(new Error('server exited during start')));
  });
}

const user = {
  name: 'Grace Ful',
  phone: '5551234567',
  age: 40,
  username: 'graceful',
  email: 'graceful@example.com',
  password: 'shutdown-safe',
  agree: true,
};

describe('server process', () => {
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('serves /healthz on embedded SQLite and finishes an in-flight sign-up on SIGTERM', async () => {
    const first = await start();
    const health = await fetch(`${first.url}/healthz`).then((r) => r.json());
    expect(health).toMatchObject({ ok: true, engine: 'sqlite', mail: 'outbox' });

    // The sign-up is mid-flight (hashing `auth`) when SIGTERM arrives.
    const { body } = await signUpBody(user);
    const pending = fetch(`${first.url}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    await new Promise((r) => setTimeout(r, 5));
    first.child.kill('SIGTERM');
    const res = await pending;
    expect(res.status).toBe(201);
    expect(await first.exited).toBe(0);

    // The account survived the shutdown.
    const second = await start();
    const client = new TestClient(second.url);
    const signIn = await client.post('/api/auth/signin', await signInBody(client, user.username, user.password));
    expect(signIn.status).toBe(200);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});

/**
 * `npm start` under a supervisor: SIGTERM to npm reaches the server, which drains and exits,
 * and npm exits with it. (npm runs scripts through `sh -c`, which passed nothing on: npm
 * exited and the server kept the port.) The web app is not built here (WEB_DIST empty).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-npm-start-'));
let npm: ChildProcess | null = null;
afterAll(() => {
  npm?.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** The address the server says it listens on. */
function readyAddress(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout?.on('data', (d: Buffer) => {
      seen += d.toString();
      const m = /"address":"(http:\/\/[^"]+)".*"msg":"Parley is ready"/.exec(seen);
      if (m?.[1]) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`npm start ended (${code}) before it was ready:\n${seen}`)));
  });
}

it('passes SIGTERM on to the server, and ends with it', async () => {
  npm = spawn('npm', ['start'], {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, WEB_DIST: '', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const address = await readyAddress(npm);
  expect((await fetch(`${address}/livez`)).status).toBe(200);
  const exited = once(npm, 'exit');
  npm.kill('SIGTERM');
  await exited;
  // Nobody serves the port any more: the server went with npm.
  let answered = true;
  for (let i = 0; i < 50 && answered; i++) {
    answered = await fetch(`${address}/livez`).then(
      () => true,
      () => false,
    );
    if (answered) await new Promise((r) => setTimeout(r, 200));
  }
  expect(answered).toBe(false);
}, 60_000);

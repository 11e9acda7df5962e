/**
 * Scale-out in the browser: `npm run cluster` (two server processes on PostgreSQL and
 * Redis, behind nginx with deploy/nginx/parley.conf). Two people on different processes
 * chat live; then, talking through nginx, one process is killed with SIGKILL in the middle
 * of the conversation and nothing is lost or shown twice. Needs TEST_DATABASE_URL,
 * TEST_REDIS_URL and nginx (the CI script installs nginx-light).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { downloadBlob, uploadBlob } from '@app/server/test';
import { Redis } from 'ioredis';
import pg from 'pg';
import { test as base, bubble, bubbles, expect, openChat, send, tick } from './chat-helpers.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const pgUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
const hasNginx =
  existsSync('/usr/sbin/nginx') || spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' }).status === 0;
const why = !pgUrl || !redisUrl ? 'needs TEST_DATABASE_URL and TEST_REDIS_URL' : !hasNginx ? 'needs nginx' : '';

interface Cluster {
  url: string;
  redisPrefix: string;
  processes: { pid: number; url: string }[];
  child: ChildProcess;
}

// A cluster per test: the kill test leaves its cluster with one process.
const test = base.extend<{ cluster: Cluster }>({
  cluster: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright fixtures take their dependencies as a pattern.
    async ({}, use, testInfo) => {
      const tag = `${process.pid}_${testInfo.workerIndex}_${Date.now().toString(36)}`;
      const schema = `e2e_cluster_${tag}`;
      const child = spawn(process.execPath, [path.join(ROOT, 'scripts/cluster.ts'), '--free-ports'], {
        cwd: ROOT,
        env: {
          ...process.env,
          DATABASE_URL: pgUrl,
          DATABASE_SCHEMA: schema,
          REDIS_URL: redisUrl,
          REDIS_PREFIX: `e2e_${tag}`,
          LOG_LEVEL: 'warn',
          ADMIN_EMAIL: 'admin@example.com',
          RATE_LIMIT_SIGNUP_PER_IP: '10000',
          RATE_LIMIT_SIGNIN_PER_IP: '10000',
          RATE_LIMIT_MAIL_PER_IP: '10000',
          RATE_LIMIT_API_PER_MINUTE: '100000',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      // The cluster's stderr (its servers' too): shown as it comes, and kept for the error
      // if it does not start, so a failure explains itself.
      let stderr = '';
      child.stderr?.on('data', (d: Buffer) => {
        process.stderr.write(d);
        stderr = (stderr + d.toString()).slice(-20_000);
      });
      const dropSchema = async () => {
        const c = new pg.Client({ connectionString: pgUrl });
        await c.connect();
        await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await c.end();
      };
      const closed = new Promise<void>((r) => child.on('close', () => r()));
      const exited = new Promise<number | string | null>((r) => child.on('exit', (code, signal) => r(code ?? signal)));
      const ready = await new Promise<Omit<Cluster, 'child' | 'redisPrefix'>>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('did not start in 60 s')), 60_000);
        createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
          try {
            const entry = JSON.parse(line) as { msg?: string } & Omit<Cluster, 'child' | 'redisPrefix'>;
            if (entry.msg === 'cluster ready') {
              clearTimeout(timer);
              resolve(entry);
            }
          } catch {
            // a server log line
          }
        });
        void exited.then(async (code) => {
          clearTimeout(timer);
          // All of its stderr: it is read to the end once the pipe closes.
          await Promise.race([closed, new Promise((r) => setTimeout(r, 2_000))]);
          reject(new Error(`exited (${code})`));
        });
      }).catch(async (e: Error) => {
        // Stopped (with everything it started) before the test fails: nothing is left running.
        child.kill('SIGTERM');
        await exited;
        await dropSchema();
        throw new Error(`cluster ${e.message}; its stderr:\n${stderr || '(empty)'}`);
      });
      await use({ ...ready, child, redisPrefix: `e2e_${tag}` });
      child.kill('SIGTERM');
      await exited;
      await dropSchema();
      // The cluster stops its processes before it exits: none may be left running.
      const left = ready.processes.filter((p) => alive(p.pid));
      if (left.length) throw new Error(`server processes left running: ${left.map((p) => p.pid).join(', ')}`);
    },
    { timeout: 90_000 },
  ],
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The process a user's socket is on: the one whose instance id holds their presence in Redis. */
async function processOf(cluster: Cluster, userId: string): Promise<{ pid: number; url: string }> {
  const redis = new Redis(redisUrl as string);
  try {
    const instances = await Promise.all(
      cluster.processes.map(async (p) => ({
        ...p,
        instance: (await (await fetch(`${p.url}/healthz`)).json()).instance,
      })),
    );
    const fields = await redis.hkeys(`${cluster.redisPrefix}:presence:${userId}`);
    const found = instances.find((p) => fields.includes(p.instance));
    if (!found) throw new Error(`no process holds ${userId}: ${JSON.stringify({ fields, instances })}`);
    return found;
  } finally {
    redis.disconnect();
  }
}

test.skip(Boolean(why), `scale-out browser tests: ${why}`);

test('two people on different server processes chat live: messages, ticks, typing and presence', async ({
  people,
  cluster,
}) => {
  const [p1, p2] = cluster.processes;
  if (!p1 || !p2) throw new Error('two processes expected');
  const alice = await people.person('alice', { baseURL: p1.url });
  const bob = await people.person('bob', { baseURL: p2.url });

  await openChat(bob.page, alice);
  await openChat(alice.page, bob);
  // Each sees the other online, though their sockets are on different processes.
  await expect(alice.page.getByText('Online', { exact: true })).toBeVisible();
  await expect(bob.page.getByText('Online', { exact: true })).toBeVisible();

  await alice.page.getByRole('textbox', { name: 'Message', exact: true }).fill('typing across');
  await expect(bob.page.getByText('typing…', { exact: true })).toBeVisible();
  await alice.page.getByRole('textbox', { name: 'Message', exact: true }).fill('');

  await send(alice.page, 'hello from process one');
  await expect(bubble(bob.page, 'hello from process one')).toBeVisible();
  // Bob has the chat open: Alice's tick turns read.
  await expect(tick(bubble(alice.page, 'hello from process one'), 'Read')).toBeVisible();

  await send(bob.page, 'and back from process two');
  await expect(bubble(alice.page, 'and back from process two')).toBeVisible();

  // Bob's last tab closes: Alice sees him go.
  await bob.page.close();
  await expect(alice.page.getByText(/^Last seen/)).toBeVisible({ timeout: 10_000 });
});

test('through nginx, a process killed with SIGKILL mid-conversation loses and repeats nothing', async ({
  people,
  cluster,
}) => {
  test.slow();
  const alice = await people.person('alice', { baseURL: cluster.url });
  const bob = await people.person('bob', { baseURL: cluster.url });
  await openChat(bob.page, alice);
  await openChat(alice.page, bob);

  const texts = Array.from({ length: 12 }, (_, i) => `through the proxy ${i + 1}`);
  for (const text of texts.slice(0, 6)) await send(alice.page, text);
  await expect(bubble(bob.page, texts[5] as string)).toBeVisible();

  // The process holding Alice's socket dies without a goodbye; she reconnects through
  // nginx to the other one, and keeps typing meanwhile.
  const victim = await processOf(cluster, alice.id);
  process.kill(victim.pid, 'SIGKILL');
  for (const text of texts.slice(6)) await send(alice.page, text);

  for (const text of texts) await expect(bubble(bob.page, text)).toHaveCount(1, { timeout: 20_000 });
  // In order, each once.
  const order = await bubbles(bob.page).evaluateAll((els) => els.map((el) => el.querySelector('p')?.textContent ?? ''));
  expect(order.filter((t) => t.startsWith('through the proxy '))).toEqual(texts);
  // Alice's side: every message left the outbox and was delivered.
  for (const text of texts) {
    await expect(tick(bubble(alice.page, text), 'Pending')).toHaveCount(0, { timeout: 20_000 });
  }

  // A file goes up through nginx in the browser's 8 MiB PATCHes, and comes back whole.
  const sid = (await alice.context.cookies()).find((c) => c.name === 'sid')?.value as string;
  const file = new Uint8Array(9 * 1024 * 1024).map((_, i) => (i * 7) & 0xff);
  const id = await uploadBlob(cluster.url, sid, file, 8 * 1024 * 1024);
  const back = await downloadBlob(cluster.url, sid, id);
  expect(back.status).toBe(200);
  expect(Buffer.compare(Buffer.from(back.bytes), Buffer.from(file))).toBe(0);
});

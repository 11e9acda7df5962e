/**
 * Two real server processes on PostgreSQL and Redis; one is killed with SIGKILL in the
 * middle of a conversation. Its users reconnect to the other process and resume from
 * their update-log position: no acknowledged message is lost, none arrives twice, and
 * the presence of a user who was only on the dead process turns offline within the
 * configured bound (PRESENCE_TTL_MS + PRESENCE_SWEEP_MS). Needs TEST_DATABASE_URL and
 * TEST_REDIS_URL.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChatMessage, DownFrame } from '@app/protocol';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnServer } from '../spawn-server.ts';
import { setUpKeys } from '../test/accounts.ts';
import { newUserInput, signUpBody, TestClient, type TestServer } from '../test/harness.ts';
import { Sealer } from '../test/sealing.ts';
import { WsTestClient } from '../test/ws-client.ts';

const pgUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
const why = !pgUrl || !redisUrl ? 'set TEST_DATABASE_URL and TEST_REDIS_URL to run the kill -9 test' : '';
if (why) console.warn(`kill.test.ts skipped: ${why}`);

const TTL_MS = 1500;
const SWEEP_MS = 300;
const tag = `${process.pid}_${Date.now().toString(36)}`;
const schema = `t_kill_${tag}`;

interface Proc {
  child: ChildProcess;
  url: string;
  dataDir: string;
}

async function startProcess(): Promise<Proc> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-kill-'));
  const env = {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    WEB_DIST: '',
    LOG_LEVEL: 'info',
    DATABASE_URL: pgUrl,
    DATABASE_SCHEMA: schema,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: `test_${tag}`,
    PRESENCE_TTL_MS: String(TTL_MS),
    PRESENCE_SWEEP_MS: String(SWEEP_MS),
    RATE_LIMIT_SIGNUP_PER_IP: '1000',
    RATE_LIMIT_SIGNIN_PER_IP: '1000',
    // The test's credentials are derived cheaply (TEST_KDF); the servers must accept them.
    KDF_COST: '10',
  };
  const { child, url } = await spawnServer({ env, timeoutMs: 20_000 });
  return { child, url, dataDir };
}

/** The sockets' Origin must be the server's own (no PUBLIC_URL: the Host's). */
const serverOf = (p: Proc) => ({ url: p.url }) as TestServer;

/** Signs up with keys, as the harness's signUp does (and registers the person's sealer). */
async function signUp(p: Proc) {
  const client = new TestClient(p.url, { origin: p.url });
  const { body, wrapKey } = await signUpBody(newUserInput());
  const res = await client.post('/api/auth/signup', body);
  if (res.status !== 201) throw new Error(`sign-up failed: ${res.status}`);
  const id = res.body.user.id as string;
  Sealer.register(id, (await setUpKeys(client, id, wrapKey)).contents);
  return { client, id };
}

function presenceOf(c: WsTestClient, userId: string) {
  return c.frames.filter(
    (f): f is Extract<DownFrame, { t: 'presence' }> => f.t === 'presence' && f.presence.userId === userId,
  );
}

describe.skipIf(Boolean(why))('kill -9 of a server process', () => {
  const procs: Proc[] = [];
  afterAll(async () => {
    for (const p of procs) {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      rmSync(p.dataDir, { recursive: true, force: true });
    }
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await c.end();
  });

  it('loses no acknowledged message, delivers none twice, and corrects presence in bounded time', async () => {
    const p1 = await startProcess();
    procs.push(p1);
    const p2 = await startProcess();
    procs.push(p2);

    const alice = await signUp(p1);
    const bob = await signUp(p2);
    const carol = await signUp(p1);

    const bobWs = await WsTestClient.connect(serverOf(p2), bob.client.cookie);
    await bobWs.request('watch', { userIds: [alice.id, carol.id] });
    // Carol is only on the process that will die.
    const carolWs = await WsTestClient.connect(serverOf(p1), carol.client.cookie);
    await bobWs.waitFor(() => presenceOf(bobWs, carol.id).some((f) => f.presence.online));

    let aliceWs = await WsTestClient.connect(serverOf(p1), alice.client.cookie);
    const acked: ChatMessage[] = [];
    const TOTAL = 60;
    const KILL_AT = 25;
    let killedAt = 0;
    for (let i = 0; i < TOTAL; i++) {
      const msgId = randomUUID();
      const text = `message ${i}`;
      if (i === KILL_AT) {
        // Sent, then the process dies before (or after) storing it: nobody knows yet.
        aliceWs.sendRaw({ t: 'send', id: 'inflight', ...(await aliceWs.sealedSend(bob.id, text, msgId)) });
        p1.child.kill('SIGKILL');
        killedAt = Date.now();
        await aliceWs.waitClosed();
        // Reconnect to the surviving process from where this client was.
        const lastSeq = aliceWs.lastSeq;
        aliceWs = await WsTestClient.connect(serverOf(p2), alice.client.cookie, lastSeq);
        expect(aliceWs.welcome?.resumed).toBe(true);
      }
      // Every send is retried with its id until acknowledged (the outbox does the same).
      acked.push(await aliceWs.sendMessage(bob.id, text, msgId));
    }
    const lastId = acked.at(-1)?.id;
    await bobWs.waitFor(
      () => bobWs.updates().some((u) => u.update.kind === 'message' && u.update.message.id === lastId),
      10_000,
    );

    // Bob got every acknowledged message live, in order, each once.
    const live = bobWs
      .updates()
      .filter(
        (u) =>
          u.update.kind === 'message' && u.update.message.senderId === alice.id && u.update.message.status === 'sent',
      )
      .map((u) => (u.update.kind === 'message' ? u.update.message.id : ''));
    expect(live).toEqual(acked.map((m) => m.id));
    // Each opens for Bob as the text Alice sealed (a retried send keeps its first ciphertext).
    const texts = await Promise.all(acked.map((m) => bobWs.textOf(m)));
    expect(texts).toEqual(Array.from({ length: TOTAL }, (_, i) => `message ${i}`));
    const bobSeqs = bobWs.updates().map((u) => u.seq);
    expect(new Set(bobSeqs).size).toBe(bobSeqs.length);

    // The database holds each exactly once.
    const history = await bobWs.request('history', { peerId: alice.id, limit: 200 });
    expect(history.messages.map((m) => m.id).sort()).toEqual(acked.map((m) => m.id).sort());

    // Alice's resumed socket repeats nothing she had.
    const aliceSeqs = aliceWs.updates().map((u) => u.seq);
    expect(new Set(aliceSeqs).size).toBe(aliceSeqs.length);

    // Carol (only on the dead process) goes offline within the bound; Alice never did.
    await bobWs.waitFor(() => presenceOf(bobWs, carol.id).some((f) => !f.presence.online), TTL_MS + SWEEP_MS + 5000);
    const correctedAfter = Date.now() - killedAt;
    expect(correctedAfter).toBeLessThan(TTL_MS + SWEEP_MS + 1500);
    expect(presenceOf(bobWs, alice.id).some((f) => !f.presence.online)).toBe(false);
    expect(carolWs.closed).not.toBeNull();

    await aliceWs.close();
    await bobWs.close();
    console.info(`kill -9: presence corrected ${correctedAfter} ms after the kill (bound ${TTL_MS + SWEEP_MS} ms)`);
  }, 60_000);
});

/**
 * A socket whose handshake fails on the server (the database or Redis refuses while it
 * is greeted) is never left silent: the failure is logged with the user's id and the
 * socket is closed with CLOSE.serverError, which the client reconnects on with backoff.
 */
import { CLOSE, PROTOCOL_VERSION } from '@app/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ENGINES, LOOSE_LIMITS, signUp, startTestServer, type TestServer, useTestServer } from '../test/harness.ts';
import { TcpProxy } from '../test/tcp-proxy.ts';
import { WsTestClient } from '../test/ws-client.ts';

/** The server's log lines, parsed. */
function logSink() {
  const lines: { level: number; msg: string; userId?: string; err?: { message?: string } }[] = [];
  return {
    lines,
    stream: { write: (line: string) => void lines.push(JSON.parse(line)) },
    failures: () => lines.filter((l) => l.level >= 50 && l.msg === 'socket failed'),
  };
}

/** Greets and waits for the server to close the socket; returns the close and how long it took. */
async function greetUntilClosed(t: TestServer, cookie: string) {
  const ws = await WsTestClient.open(t, cookie);
  const started = Date.now();
  ws.sendRaw({ t: 'hello', v: PROTOCOL_VERSION, lastSeq: null });
  await ws.waitClosed(3000);
  return { closed: ws.closed, ms: Date.now() - started, welcomed: ws.welcome !== null };
}

describe.each(ENGINES)('a handshake the store fails ($name)', ({ url }) => {
  const log = logSink();
  const t = useTestServer({
    engine: url,
    tag: 'hsfail',
    env: { LOG_LEVEL: 'error' },
    config: { rateLimits: LOOSE_LIMITS },
    logStream: log.stream,
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('is logged with the user id and closes the socket with serverError within a second', async () => {
    const alice = await signUp(t);
    vi.spyOn(t.server.ctx.chat, 'currentSeq').mockRejectedValue(new Error('database is down'));
    const r = await greetUntilClosed(t, alice.client.cookie as string);
    expect(r.welcomed).toBe(false);
    expect(r.closed?.code).toBe(CLOSE.serverError);
    expect(r.ms).toBeLessThan(1000);
    const failure = log.failures().find((l) => l.userId === alice.user.id);
    expect(failure?.err?.message).toBe('database is down');
  });

  it('leaves the next handshake working once the store answers again', async () => {
    const bob = await signUp(t);
    vi.spyOn(t.server.ctx.social, 'privacy').mockRejectedValueOnce(new Error('database is down'));
    expect((await greetUntilClosed(t, bob.client.cookie as string)).closed?.code).toBe(CLOSE.serverError);
    const again = await WsTestClient.connect(t, bob.client.cookie as string);
    expect(again.welcome?.userId).toBe(bob.user.id);
    await again.close();
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
describe.skipIf(!redisUrl)(`a handshake Redis fails${redisUrl ? '' : ' (set TEST_REDIS_URL to run)'}`, () => {
  const log = logSink();
  let t: TestServer;
  let proxy: TcpProxy;
  beforeAll(async () => {
    const target = new URL(redisUrl as string);
    proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    const port = await proxy.start();
    t = await startTestServer({
      env: {
        LOG_LEVEL: 'error',
        REDIS_URL: `redis://127.0.0.1:${port}`,
        REDIS_PREFIX: `test_hsfail_${process.pid}_${Date.now().toString(36)}`,
      },
      config: { rateLimits: LOOSE_LIMITS },
      logStream: log.stream,
    });
  });
  afterAll(async () => {
    await proxy?.start().catch(() => {});
    await t?.close();
    await proxy?.close();
  });

  it('is logged with the user id and closes the socket with serverError within a second', async () => {
    const alice = await signUp(t);
    const ws = await WsTestClient.open(t, alice.client.cookie as string);
    // Redis goes away between the upgrade and the hello: subscribing to the user's channel fails.
    await proxy.cut();
    const started = Date.now();
    ws.sendRaw({ t: 'hello', v: PROTOCOL_VERSION, lastSeq: null });
    await ws.waitClosed(3000);
    expect(ws.welcome).toBeNull();
    expect(ws.closed?.code).toBe(CLOSE.serverError);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(log.failures().some((l) => l.userId === alice.user.id)).toBe(true);
  });
});

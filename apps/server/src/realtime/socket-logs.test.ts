/**
 * Log lines name what they are about: an HTTP request's lines carry the proxy's X-Request-Id,
 * and a socket's lines (opened, failed, closed) carry its user, its connection number and the
 * id of the upgrade request that opened it.
 */
import { PROTOCOL_VERSION } from '@app/protocol';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { LOOSE_LIMITS, signUp, startTestServer, type TestServer } from '../test/harness.ts';
import { WsTestClient } from '../test/ws-client.ts';

interface Line {
  level: number;
  msg: string;
  reqId?: string;
  userId?: string;
  conn?: number;
  err?: { message?: string };
}
const lines: Line[] = [];
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({
    env: { LOG_LEVEL: 'debug' },
    config: { rateLimits: LOOSE_LIMITS },
    logStream: { write: (line: string) => void lines.push(JSON.parse(line)) },
  });
});
afterAll(async () => {
  await t?.close();
});

it("an HTTP request's lines carry the proxy's request id", async () => {
  await fetch(`${t.url}/livez`, { headers: { 'x-request-id': 'from-proxy-1' } });
  expect(lines.filter((l) => l.reqId === 'from-proxy-1').map((l) => l.msg)).toEqual([
    'incoming request',
    'request completed',
  ]);
});

it("a socket's lines carry its user, its connection and the request that opened it", async () => {
  const alice = await signUp(t);
  const ws = await WsTestClient.open(t, alice.client.cookie, { 'x-request-id': 'from-proxy-2' });
  vi.spyOn(t.server.ctx.chat, 'currentSeq').mockRejectedValueOnce(new Error('database is down'));
  ws.sendRaw({ t: 'hello', v: PROTOCOL_VERSION, lastSeq: null });
  await ws.waitClosed(3000);
  await expect.poll(() => lines.some((l) => l.msg === 'socket closed' && l.reqId === 'from-proxy-2')).toBe(true);

  const mine = lines.filter((l) => l.reqId === 'from-proxy-2');
  expect(mine.map((l) => l.msg)).toEqual(['socket opened', 'socket failed', 'socket closed']);
  const conn = mine[0]?.conn;
  expect(conn).toEqual(expect.any(Number));
  for (const l of mine) expect(l).toMatchObject({ userId: alice.user.id, conn, reqId: 'from-proxy-2' });
  expect(mine[1]?.err?.message).toBe('database is down');

  // Without a request id from a proxy, the socket gets one of its own.
  const other = await WsTestClient.connect(t, alice.client.cookie);
  await other.close();
  await expect.poll(() => lines.filter((l) => l.msg === 'socket closed').length).toBe(2);
  const own = lines.filter((l) => l.msg === 'socket opened').at(-1);
  expect(own?.reqId).toMatch(/^ws-[0-9a-f-]{36}$/);
  expect(own?.conn).not.toBe(conn);
});

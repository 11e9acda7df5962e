/**
 * Messages are paced per user, not only per socket: one user with many sockets (on one
 * server, or spread over two sharing Redis) gets the same budget as with one.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../config.ts';
import {
  LOOSE_LIMITS,
  SCALE_OUT_SKIP,
  signUp,
  startServerPair,
  startTestServer,
  type TestServer,
} from '../test/harness.ts';
import { WsTestClient } from '../test/ws-client.ts';

const PER_SECOND = 5;
const BURST = 10;
const config: Partial<Config> = {
  rateLimits: { ...LOOSE_LIMITS, userWritesPerSecond: PER_SECOND, userWriteBurst: BURST },
  // The per-socket frame limit is not what answers here.
  wsFramesPerSecond: 10_000,
  wsBurst: 10_000,
};

const SETUPS = [
  {
    name: 'one server',
    start: async () => {
      const t = await startTestServer({ config });
      return { servers: [t], close: () => t.close() };
    },
  },
  ...(SCALE_OUT_SKIP
    ? []
    : [
        {
          name: 'two servers sharing Redis',
          start: async () => {
            const p = await startServerPair('pace', { config });
            return { servers: [p.a, p.b], close: p.close };
          },
        },
      ]),
];

describe.each(SETUPS)('per-user message pace on $name', (setup) => {
  let servers: TestServer[];
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ servers, close } = await setup.start());
  });
  afterAll(async () => {
    await close?.();
  });

  it('10 sockets of one user sending 20 messages each get the burst plus the rate, no more', async () => {
    const x = await signUp(servers[0] as TestServer);
    const y = await signUp(servers[0] as TestServer);
    const sockets = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        WsTestClient.connect(servers[i % servers.length] as TestServer, x.client.cookie),
      ),
    );
    // The chat has its key (made by y, whose budget is not x's), so x's sends bring none.
    const yWs = await WsTestClient.connect(servers[0] as TestServer, y.client.cookie);
    await yWs.sendMessage(x.user.id, 'hello x');
    // Sealed beforehand, so the sends go out at once as they did with plain text.
    const bodies = await Promise.all(
      sockets.map((ws) =>
        Promise.all(Array.from({ length: 20 }, () => ws.sealedSend(y.user.id, `paced ${randomUUID()}`))),
      ),
    );
    const started = Date.now();
    const outcomes = await Promise.all(
      sockets.flatMap((ws, i) =>
        (bodies[i] ?? []).map((body) =>
          ws.request('send', body).then(
            () => 'stored',
            (e: { frame?: { code: string } }) => e.frame?.code ?? 'other',
          ),
        ),
      ),
    );
    const seconds = (Date.now() - started) / 1000;
    const stored = outcomes.filter((o) => o === 'stored').length;
    expect(outcomes.filter((o) => o !== 'stored' && o !== 'rate_limited')).toEqual([]);
    expect(stored).toBeGreaterThanOrEqual(BURST);
    expect(stored).toBeLessThanOrEqual(BURST + Math.ceil(seconds * PER_SECOND) + 1);
    const rows = await (servers[0] as TestServer).server.ctx.chat.db
      .selectFrom('messages')
      .select('id')
      .where('sender_id', '=', x.user.id)
      .execute();
    expect(rows).toHaveLength(stored);
    // Another user is not held up by x's pace.
    await yWs.sendMessage(x.user.id, 'unaffected');
    for (const ws of [...sockets, yWs]) await ws.close();
  });
});

/**
 * "Where you're signed in" against a real server, the client bypassed (raw HTTP and
 * WebSocket): the list names each browser from its user agent and marks this one; signing
 * out one browser, or every other, ends those sessions and closes their sockets at once;
 * nobody can see or end another account's sessions. On SQLite, and on PostgreSQL when
 * TEST_DATABASE_URL is set. Across processes: realtime/scale-out.test.ts.
 */
import { API, CLOSE, SESSIONS_MSG, sessionsEndedSchema, sessionsResponseSchema } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { ENGINES, expectError, LOOSE_LIMITS, signInWith, signUp, useTestServer } from '../test/harness.ts';
import { WsTestClient } from '../test/ws-client.ts';
import { describeAgent } from './user-agent.ts';

const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';

describe('describeAgent', () => {
  it('names the browser and system, or says it does not know', () => {
    expect(describeAgent(FIREFOX_WINDOWS)).toEqual({ browser: 'Firefox 133', system: 'Windows 10' });
    expect(describeAgent(SAFARI_IPHONE)).toEqual({ browser: 'Safari 18', system: 'iOS 18' });
    expect(describeAgent(null)).toEqual({ browser: 'Unknown browser', system: 'Unknown system' });
    expect(describeAgent('curl/8.5.0')).toMatchObject({ system: 'Unknown system' });
  });
});

describe.each(ENGINES)('on $name', ({ url }) => {
  const t = useTestServer({ engine: url, tag: 'sessions', config: { rateLimits: LOOSE_LIMITS } });

  /** A user signed in from three browsers: this one (sign-up), Firefox on Windows, Safari on an iPhone. */
  async function threeBrowsers() {
    const me = await signUp(t);
    const others = [];
    for (const agent of [FIREFOX_WINDOWS, SAFARI_IPHONE]) {
      const c = t.client({ 'user-agent': agent });
      expect((await signInWith(c, me.input.email, me.input.password)).status).toBe(200);
      others.push(c);
    }
    const [firefox, safari] = others as [(typeof others)[number], (typeof others)[number]];
    return { me, firefox, safari };
  }

  const list = async (c: { get(path: string): Promise<{ status: number; body: unknown }> }) => {
    const res = await c.get(API.sessions);
    expect(res.status).toBe(200);
    return sessionsResponseSchema.parse(res.body).sessions;
  };

  it('lists every browser of the account, this one first and marked, named from its user agent', async () => {
    const { me, safari } = await threeBrowsers();
    const seen = await list(safari);
    expect(seen).toHaveLength(3);
    expect(seen[0]).toMatchObject({ browser: 'Safari 18', system: 'iOS 18', current: true });
    expect(seen.slice(1).map((s) => s.browser)).toEqual(expect.arrayContaining(['Firefox 133']));
    expect(seen.filter((s) => s.current)).toHaveLength(1);
    // Ids are the API's own: no token nor its hash.
    const rows = await t.server.ctx.store.db.selectFrom('sessions').select('token_hash').execute();
    for (const s of seen) {
      expect(s.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(rows.some((r) => r.token_hash.includes(s.id))).toBe(false);
    }
    expect((await list(me.client)).map((s) => s.id).sort()).toEqual(seen.map((s) => s.id).sort());
    expectError(await t.client().get(API.sessions), 401, 'unauthenticated');
  });

  it('signing out one browser ends its session and closes its socket; the others stay', async () => {
    const { me, firefox, safari } = await threeBrowsers();
    const firefoxWs = await WsTestClient.connect(t, firefox.cookie);
    const safariWs = await WsTestClient.connect(t, safari.cookie);
    const target = (await list(me.client)).find((s) => s.browser === 'Firefox 133');
    const res = await me.client.del(`${API.sessions}/${target?.id}`);
    expect(res.status).toBe(204);
    await firefoxWs.waitClosed();
    expect(firefoxWs.closed?.code).toBe(CLOSE.sessionEnded);
    expectError(await firefox.get(API.sessions), 401, 'unauthenticated');
    expect(safariWs.closed).toBeNull();
    expect((await list(safari)).map((s) => s.browser)).not.toContain('Firefox 133');
    // Again: it is gone. This browser's own: that is Sign Out.
    expectError(await me.client.del(`${API.sessions}/${target?.id}`), 404, 'not_found', SESSIONS_MSG.notFound);
    const mine = (await list(me.client)).find((s) => s.current);
    expectError(await me.client.del(`${API.sessions}/${mine?.id}`), 400, 'invalid_input', SESSIONS_MSG.current);
    await safariWs.close();
  });

  it('signing out every other browser keeps only this one, and its socket', async () => {
    const { me, firefox, safari } = await threeBrowsers();
    const sockets = await Promise.all([me.client, firefox, safari].map((c) => WsTestClient.connect(t, c.cookie)));
    const res = await safari.del(API.sessions);
    expect(res.status).toBe(200);
    expect(sessionsEndedSchema.parse(res.body)).toEqual({ ended: 2 });
    for (const ws of sockets.slice(0, 2)) {
      await ws.waitClosed();
      expect(ws.closed?.code).toBe(CLOSE.sessionEnded);
    }
    expect(sockets[2]?.closed).toBeNull();
    expect(await list(safari)).toEqual([expect.objectContaining({ browser: 'Safari 18', current: true })]);
    expectError(await me.client.get(API.sessions), 401, 'unauthenticated');
    await sockets[2]?.close();
  });

  it("another account's session cannot be ended, nor found; malformed ids are refused alike", async () => {
    const { me } = await threeBrowsers();
    const eve = await signUp(t);
    const ids = (await list(me.client)).map((s) => s.id);
    for (const id of [...ids, 'x', 'A'.repeat(22), '../../account', `${ids[0]}x`]) {
      expectError(await eve.client.del(`${API.sessions}/${encodeURIComponent(id)}`), 404, 'not_found');
    }
    // Eve's "every other" ends none of Alice's.
    expect((await eve.client.del(API.sessions)).body).toEqual({ ended: 0 });
    expect(await list(me.client)).toHaveLength(3);
  });
});

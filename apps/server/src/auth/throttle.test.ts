/**
 * Attempt limits under concurrency, on one server and on two servers sharing PostgreSQL
 * and Redis (requests alternate between them): a hundred attempts at once are each
 * counted before they are judged, so exactly the limit is judged, and the owner's own
 * browser is not locked out by strangers guessing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS, type RateLimits } from '../config.ts';
import { credentialsFor, randomAuth, signInBody } from '../test/accounts.ts';
import {
  newUserInput,
  SCALE_OUT_SKIP,
  signInWith,
  signUp,
  startServerPair,
  startTestServer,
  type TestClient,
  type TestResponse,
  type TestServer,
} from '../test/harness.ts';

if (SCALE_OUT_SKIP) console.warn(`throttle.test.ts: two-server runs skipped: ${SCALE_OUT_SKIP}`);

const LIMITS: RateLimits = {
  ...DEFAULT_RATE_LIMITS,
  signUpPerIp: 1000,
  mailPerIp: 1000,
  apiPerMinute: 100_000,
};

interface Setup {
  name: string;
  start(limits: Partial<RateLimits>): Promise<{ servers: TestServer[]; close(): Promise<void> }>;
}

const SETUPS: Setup[] = [
  {
    name: 'one server',
    async start(limits) {
      const t = await startTestServer({ config: { rateLimits: { ...LIMITS, ...limits }, trustProxy: true } });
      return { servers: [t], close: () => t.close() };
    },
  },
  ...(SCALE_OUT_SKIP
    ? []
    : [
        {
          name: 'two servers sharing PostgreSQL and Redis',
          async start(limits: Partial<RateLimits>) {
            const p = await startServerPair('thr', {
              config: { rateLimits: { ...LIMITS, ...limits }, trustProxy: true },
            });
            return { servers: [p.a, p.b], close: p.close };
          },
        },
      ]),
];

/** A client of server `i % n` from address `ip`, carrying `from`'s cookies. */
function clientOf(servers: TestServer[], i: number, ip: string, from?: TestClient): TestClient {
  const c = (servers[i % servers.length] as TestServer).client({ 'x-forwarded-for': ip });
  if (from) {
    c.cookie = from.cookie;
    c.device = from.device;
  }
  return c;
}

function statuses(responses: TestResponse[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const r of responses) out[r.status] = (out[r.status] ?? 0) + 1;
  return out;
}

describe.each(SETUPS)('attempt limits on $name', (setup) => {
  let servers: TestServer[];
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ servers, close } = await setup.start({}));
  });
  afterAll(async () => {
    await close?.();
  });
  const first = () => servers[0] as TestServer;

  it('100 concurrent wrong sign-ins to one account from one address: exactly 5 are judged', async () => {
    const victim = await signUp(first());
    const ip = '203.0.113.10';
    // Guesses of `auth` (what a guessed password would give: 32 bytes the server cannot tell apart).
    const res = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        clientOf(servers, i, ip).post('/api/auth/signin', { login: victim.input.email, auth: randomAuth() }),
      ),
    );
    expect(statuses(res)).toEqual({ 401: DEFAULT_RATE_LIMITS.signInPerAccountIp, 429: 95 });
    // The right password from that address is refused too, until the window passes.
    const right = await signInWith(clientOf(servers, 1, ip), victim.input.email, victim.input.password);
    expect(right.status).toBe(429);
    expect(right.body.message).toMatch(/^Too many attempts\. Please try again in \d+ minutes?\.$/);
  });

  it('100 concurrent wrong sign-ins spread over 40 accounts from one address: exactly 30 are judged', async () => {
    const accounts: Awaited<ReturnType<typeof signUp>>[] = [];
    for (let i = 0; i < 40; i++) accounts.push(await signUp(servers[i % servers.length] as TestServer));
    const ip = '203.0.113.11';
    const res = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        clientOf(servers, i, ip).post('/api/auth/signin', {
          login: accounts[i % accounts.length]?.input.email,
          auth: randomAuth(),
        }),
      ),
    );
    expect(statuses(res)).toEqual({ 401: DEFAULT_RATE_LIMITS.signInPerIp, 429: 70 });
  });
});

describe.each(SETUPS)('sign-up and PIN limits on $name', (setup) => {
  let servers: TestServer[];
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ servers, close } = await setup.start({ signUpPerIp: 10 }));
  });
  afterAll(async () => {
    await close?.();
  });

  it('100 concurrent sign-ups from one address: exactly 10 accounts', async () => {
    const before = await (servers[0] as TestServer).server.ctx.store.countUsers();
    const { credentials } = await credentialsFor('secret123');
    const res = await Promise.all(
      Array.from({ length: 100 }, (_, i) => {
        const { password: __, ...fields } = newUserInput();
        return clientOf(servers, i, '203.0.113.20').post('/api/auth/signup', { ...fields, credentials });
      }),
    );
    expect(statuses(res)).toEqual({ 201: 10, 429: 90 });
    expect(await (servers[0] as TestServer).server.ctx.store.countUsers()).toBe(before + 10);
  });

  /** A user with PIN 123456, and a client of each server in their session. */
  async function withPin() {
    const u = await signUp(servers[0] as TestServer, {}, '203.0.113.21');
    expect((await u.client.request('PUT', '/api/me/pin', { pin: '123456' })).status).toBe(200);
    return u;
  }

  it('100 concurrent wrong PINs: exactly 5 are judged, then the lock-out', async () => {
    const u = await withPin();
    const res = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        clientOf(servers, i, '203.0.113.22', u.client).post('/api/me/pin/verify', {
          pin: String(100000 + i + 1),
        }),
      ),
    );
    // Four wrong ones say how many attempts are left; the fifth starts the lock-out.
    expect(statuses(res)).toEqual({ 403: 4, 429: 96 });
    const left = res.filter((r) => r.status === 403).map((r) => r.body.message);
    expect(left.sort()).toEqual(
      ['1 attempt left', '2 attempts left', '3 attempts left', '4 attempts left'].map(
        (l) => `Invalid PIN - Please try again (${l})`,
      ),
    );
    const state = await (servers[0] as TestServer).server.ctx.pins.pinState(u.user.id);
    expect(state.lockedUntil).toBeGreaterThan(Date.now());
    // Even the right PIN is refused now.
    const right = await clientOf(servers, 1, '203.0.113.22', u.client).post('/api/me/pin/verify', { pin: '123456' });
    expect(right.status).toBe(429);
    expect(right.body.error).toBe('pin_locked');
  });

  it('four wrong PINs and then the right one: accepted, and the count starts again', async () => {
    const u = await withPin();
    const c = clientOf(servers, 0, '203.0.113.24', u.client);
    for (let i = 0; i < 4; i++) expect((await c.post('/api/me/pin/verify', { pin: `99999${i}` })).status).toBe(403);
    expect(
      (await clientOf(servers, 1, '203.0.113.24', u.client).post('/api/me/pin/verify', { pin: '123456' })).status,
    ).toBe(200);
    expect((await (servers[0] as TestServer).server.ctx.pins.pinState(u.user.id)).failures).toBe(0);
  });

  it('a burst of wrong PINs with the right one last never gets it accepted after five failures', async () => {
    const u = await withPin();
    const { pins: pinStore } = (servers[0] as TestServer).server.ctx;
    for (let burst = 0; burst < 7; burst++) {
      await pinStore.setPin(u.user.id, (await pinStore.pinState(u.user.id)).hash, Date.now());
      const pins = [...Array.from({ length: 20 }, (_, i) => String(200000 + burst * 100 + i)), '123456'];
      const res = await Promise.all(
        pins.map((pin, i) => clientOf(servers, i, '203.0.113.23', u.client).post('/api/me/pin/verify', { pin })),
      );
      const last = res[20] as TestResponse<{ error?: string }>;
      const wrong = res.slice(0, 20).filter((r) => r.status === 403).length;
      if (last.status === 200) {
        // Judged among the first five: at most four wrong before it, and (the count starting
        // again) at most four after.
        expect(wrong, `burst ${burst}`).toBeLessThanOrEqual(8);
      } else {
        // Refused like the rest: at most four wrong ones were judged before the lock-out.
        expect(last.status, `burst ${burst}`).toBe(429);
        expect(last.body.error).toBe('pin_locked');
        expect(wrong, `burst ${burst}`).toBeLessThanOrEqual(4);
      }
    }
  });

  it('a right PIN judged after the lock-out began is refused like any other', async () => {
    const u = await withPin();
    const { pins } = (servers[0] as TestServer).server.ctx;
    const now = Date.now();
    const checks = [];
    for (let i = 0; i < 5; i++) checks.push(await pins.reservePinCheck(u.user.id, now));
    expect(checks.map((c) => (c.ok ? c.attempt : 0))).toEqual([1, 2, 3, 4, 5]);
    expect((await pins.reservePinCheck(u.user.id, now)).ok).toBe(false);
    // The fifth is judged wrong first (the lock-out begins), then the third turns out right.
    expect(await pins.pinCheckFailed(u.user.id, 5, now)).toBeGreaterThan(now);
    expect(await pins.pinCheckPassed(u.user.id, now + 1)).toBe(false);
    expect((await pins.pinState(u.user.id)).lockedUntil).toBeGreaterThan(now);
  });
});

describe.each(SETUPS)('the owner’s browser and a guessing burst on $name', (setup) => {
  // Wide enough that the owner's one password check (argon2id, slower on a loaded machine)
  // stays well inside a slot: 600 ms was once exceeded (679 ms) under a parallel browser suite.
  const SLOW_MS = 1_500;
  let servers: TestServer[];
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ servers, close } = await setup.start({
      signInPerAccountIp: 3,
      signInPerAccount: 10,
      signInSlowMs: SLOW_MS,
      signInQueueMs: SLOW_MS * 3,
    }));
  });
  afterAll(async () => {
    await close?.();
  });

  it('strangers from 20 addresses are slowed to one guess every SLOW_MS; the owner’s browser gets in at once', async () => {
    const owner = await signUp(servers[0] as TestServer, {}, '198.51.100.1');
    // The owner's browser signs in once: it now holds a device cookie for the account.
    const browser = clientOf(servers, 0, '198.51.100.1');
    const right = await signInBody(browser, owner.input.email, owner.input.password);
    const first = await browser.post('/api/auth/signin', right);
    expect(first.status).toBe(200);
    expect(browser.device).toBeTruthy();

    const started = Date.now();
    const judged: number[] = [];
    const res = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const r = await clientOf(servers, i, `203.0.113.${100 + (i % 20)}`).post('/api/auth/signin', {
          login: owner.input.email,
          auth: randomAuth(),
        });
        if (r.status === 401) judged.push(Date.now() - started);
        return r;
      }),
    );
    // 10 free guesses, then slots at +0, +1, +2 and +3 × SLOW_MS (one more if the burst
    // itself took a while to arrive); everything else refused at once.
    const { 401: guesses = 0, 429: turnedAway = 0 } = statuses(res);
    expect(guesses + turnedAway).toBe(60);
    expect(guesses).toBeGreaterThanOrEqual(14);
    expect(guesses).toBeLessThanOrEqual(15);
    // Paced: by the first slot only the free ones and one more were judged; the last paced
    // guess waited three slots.
    expect(judged.filter((ms) => ms < SLOW_MS).length).toBeLessThanOrEqual(11);
    expect(Math.max(...judged)).toBeGreaterThanOrEqual(3 * SLOW_MS - 50);

    // The owner's own browser, even from an address the strangers used, is not held up.
    const t0 = Date.now();
    const again = clientOf(servers, 1, '203.0.113.100', browser);
    const ok = await again.post('/api/auth/signin', right);
    expect(ok.status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(SLOW_MS);
    // Without it, from that address, the owner is refused like the strangers…
    const bare = await clientOf(servers, 0, '203.0.113.100').post('/api/auth/signin', right);
    expect(bare.status).toBe(429);
    // …and a device cookie of another account is worth nothing here.
    const stranger = await signUp(servers[0] as TestServer, {}, '203.0.113.100');
    const borrowed = clientOf(servers, 0, '203.0.113.100', stranger.client);
    borrowed.cookie = null;
    const refused = await borrowed.post('/api/auth/signin', { login: owner.input.email, auth: randomAuth() });
    expect(refused.status).toBe(429);
  });
});

describe.each(SETUPS)('the API request limit on $name', (setup) => {
  let servers: TestServer[];
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ servers, close } = await setup.start({ apiPerMinute: 20 }));
  });
  afterAll(async () => {
    await close?.();
  });

  it('60 concurrent requests from one address, whichever server they reach: exactly 20 answered', async () => {
    const res = await Promise.all(
      Array.from({ length: 60 }, (_, i) => clientOf(servers, i, '203.0.113.30').get('/api/session')),
    );
    expect(statuses(res)).toEqual({ 200: 20, 429: 40 });
    // Another address has its own count.
    expect((await clientOf(servers, 1, '203.0.113.31').get('/api/session')).status).toBe(200);
  });
});

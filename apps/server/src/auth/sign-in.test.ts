/** Sign-in, sessions and sign-out against a real server. */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS, type RateLimits } from '../config.ts';
import { randomAuth, signInBody } from '../test/accounts.ts';
import {
  LOOSE_LIMITS,
  signInWith,
  signUp,
  signUpBody,
  startTestServer,
  type TestClient,
  type TestResponse,
  type TestServer,
} from '../test/harness.ts';
import { countUserSessions } from '../test/store-queries.ts';

const SIGNIN = '/api/auth/signin';
const SESSION = '/api/session';
const PROTECTED = '/api/auth/resend-verification';
const INVALID = { error: 'invalid_credentials', message: 'Invalid credentials' };
const PASSWORD = 'secret123';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({
    config: { rateLimits: LOOSE_LIMITS },
  });
});
afterAll(async () => {
  await t?.close();
});

function sidOf(res: TestResponse): string | undefined {
  return res.headers.getSetCookie().find((c) => c.startsWith('sid='));
}

/** A fresh client carrying the given raw cookie value. */
function withCookie(server: TestServer, cookie: string | null): TestClient {
  const c = server.client();
  c.cookie = cookie;
  return c;
}

async function limitedServer(limits: Partial<RateLimits>): Promise<TestServer> {
  return startTestServer({ config: { rateLimits: { ...DEFAULT_RATE_LIMITS, signUpPerIp: 1000, ...limits } } });
}

describe('signing in', () => {
  it('by e-mail in any case, by username, and by @username', async () => {
    const { input, user } = await signUp(t);
    for (const login of [
      input.email,
      input.email.toUpperCase(),
      `  ${input.email}  `,
      input.username,
      input.username.toUpperCase(),
      `@${input.username}`,
    ]) {
      const c = t.client();
      const res = await signInWith(c, login, PASSWORD);
      expect(res.status, login).toBe(200);
      expect(res.body.user.id).toBe(user.id);
      // The account's keys come with it, sealed: the server cannot open them.
      expect(res.body.keys).toMatchObject({ bundleVersion: 1, stale: false, publicKeys: { userId: user.id } });
      expect((await c.get(SESSION)).body.user.id).toBe(user.id);
    }
  });

  it('a wrong password and an unknown account give the identical 401 body', async () => {
    const { input } = await signUp(t);
    const wrong = await signInWith(t.client(), input.email, 'wrong-password');
    const unknownEmail = await signInWith(t.client(), 'nobody@example.com', PASSWORD);
    const unknownName = await signInWith(t.client(), 'nobody_here', PASSWORD);
    const badHandle = await signInWith(t.client(), 'no such-user!', PASSWORD);
    // The password itself, as an old client would send it, is no credential any more.
    const plain = await t.client().post(SIGNIN, { login: input.email, password: PASSWORD });
    for (const res of [wrong, unknownEmail, unknownName, badHandle, plain]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual(INVALID);
      expect(sidOf(res)).toBeUndefined();
    }
  });

  it('missing or empty fields → 400', async () => {
    const auth = randomAuth();
    const noCredential = { login: 'someone' };
    for (const body of [
      {},
      { auth },
      { password: PASSWORD },
      { login: '', auth },
      { login: '   ', auth },
      noCredential,
    ]) {
      const res = await t.client().post(SIGNIN, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('invalid_input');
      expect(res.body.message).toBe('Please fill in all fields');
    }
    // `auth` is 32 bytes in base64url, nothing else.
    for (const bad of ['', 'short', `${auth}A`, `${auth.slice(0, -1)}+`, `${auth.slice(0, -1)}=`, 42, null]) {
      const res = await t.client().post(SIGNIN, { login: 'someone', auth: bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body).toMatchObject({ error: 'invalid_input', message: 'Invalid credentials' });
    }
    const extra = await t.client().post(SIGNIN, { login: 'someone', auth, admin: true });
    expect(extra.status).toBe(400);
    expect(extra.body.message).toBe('Unknown field: admin');
  });

  it('rotates the session: a new cookie value, and the old token stops working', async () => {
    const { client, input, user } = await signUp(t);
    const oldCookie = client.cookie;
    const res = await signInWith(client, input.email, PASSWORD);
    expect(res.status).toBe(200);
    expect(client.cookie).toBeTruthy();
    expect(client.cookie).not.toBe(oldCookie);
    expect((await client.get(SESSION)).body.user.id).toBe(user.id);
    expect((await withCookie(t, oldCookie).get(SESSION)).body).toEqual({ user: null });
  });

  it('remember:false gives a browser-session cookie (no Max-Age, no Expires)', async () => {
    const { input } = await signUp(t);
    const c = t.client();
    const res = await signInWith(c, input.username, PASSWORD, { remember: false });
    expect(res.status).toBe(200);
    const cookie = sidOf(res);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).not.toMatch(/Max-Age/i);
    expect(cookie).not.toMatch(/Expires/i);
    expect((await c.get(SESSION)).body.user).not.toBeNull();

    const remembered = await signInWith(t.client(), input.username, PASSWORD);
    expect(sidOf(remembered)).toMatch(/Max-Age=\d+/i);
  });
});

describe('signing out', () => {
  it('ends the session: the old cookie is signed out and protected routes answer 401', async () => {
    const { client } = await signUp(t);
    const cookie = client.cookie;
    const res = await client.post('/api/auth/signout');
    expect(res.status).toBe(204);
    expect(client.cookie).toBeNull();
    const old = withCookie(t, cookie);
    expect((await old.get(SESSION)).body).toEqual({ user: null });
    const denied = await old.post(PROTECTED);
    expect(denied.status).toBe(401);
    expect(denied.body.error).toBe('unauthenticated');
  });
});

describe('bad cookies', () => {
  it('tampered, garbage, very long and missing cookies are signed out', async () => {
    const { client } = await signUp(t);
    const real = client.cookie ?? '';
    const last = real.at(-1) === 'A' ? 'B' : 'A';
    const cookies = [
      `${real.slice(0, -1)}${last}`,
      `${real.slice(0, 10)}${real[10] === 'x' ? 'y' : 'x'}${real.slice(11)}`,
      'garbage',
      '%E0%A4%A',
      '"unterminated',
      real + real,
      'A'.repeat(4000),
      null,
    ];
    for (const cookie of cookies) {
      const c = withCookie(t, cookie);
      const session = await c.get(SESSION);
      expect(session.status, String(cookie).slice(0, 40)).toBe(200);
      expect(session.body).toEqual({ user: null });
      const denied = await c.post(PROTECTED);
      expect(denied.status).toBe(401);
      expect(denied.body.error).toBe('unauthenticated');
    }
    // The real one still works.
    expect((await client.get(SESSION)).body.user).not.toBeNull();
  });
});

describe('cross-origin requests', () => {
  it('Origin: https://evil.example → 403 bad_origin and nothing changes', async () => {
    const { client, input, user } = await signUp(t);
    const evil = { headers: { origin: 'https://evil.example' } };
    const before = await t.server.ctx.store.countUsers();

    const signOut = await client.request('POST', '/api/auth/signout', {}, evil);
    expect(signOut.status).toBe(403);
    expect(signOut.body.error).toBe('bad_origin');
    expect((await client.get(SESSION)).body.user.id).toBe(user.id);

    const { body: other } = await signUpBody({ ...input, username: `${input.username}x`, email: `x${input.email}` });
    const signUpRes = await t.client().request('POST', '/api/auth/signup', other, evil);
    expect(signUpRes.status).toBe(403);
    expect(await t.server.ctx.store.countUsers()).toBe(before);

    const body = await signInBody(t.client(), input.email, PASSWORD);
    const signInRes = await t.client().request('POST', SIGNIN, body, evil);
    expect(signInRes.status).toBe(403);
    expect(sidOf(signInRes)).toBeUndefined();

    const nullOrigin = await client.request('POST', '/api/auth/signout', {}, { headers: { origin: 'null' } });
    expect(nullOrigin.status).toBe(403);
    expect(await countUserSessions(t.server.ctx.store, user.id)).toBe(1);

    // Our own origin is fine.
    const own = await client.request('POST', '/api/auth/signout', {}, { headers: { origin: t.url } });
    expect(own.status).toBe(204);
    expect(await countUserSessions(t.server.ctx.store, user.id)).toBe(0);
  });
});

describe('blocked users', () => {
  it('the right password → 403 blocked and no cookie', async () => {
    const { input, user } = await signUp(t);
    await t.server.ctx.store.setFlags(user.id, { blocked: true });
    const c = t.client();
    const res = await signInWith(c, input.email, PASSWORD);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('blocked');
    expect(sidOf(res)).toBeUndefined();
    expect(c.cookie).toBeNull();
    // A wrong password still says only 'Invalid credentials'.
    const wrong = await signInWith(t.client(), input.email, 'nope-nope');
    expect(wrong.body).toEqual(INVALID);
  });

  it('an existing session → 403 blocked on GET /api/session, and the session is deleted', async () => {
    const { client, user } = await signUp(t);
    const cookie = client.cookie;
    await t.server.ctx.store.setFlags(user.id, { blocked: true });
    const res = await client.get(SESSION);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('blocked');
    expect(client.cookie).toBeNull();
    expect(await countUserSessions(t.server.ctx.store, user.id)).toBe(0);
    // Unblocking does not bring the old session back.
    await t.server.ctx.store.setFlags(user.id, { blocked: false });
    expect((await withCookie(t, cookie).get(SESSION)).body).toEqual({ user: null });
  });

  it('a blocked session is refused on protected routes too', async () => {
    const { client, user } = await signUp(t);
    await t.server.ctx.store.setFlags(user.id, { blocked: true });
    const res = await client.post(PROTECTED);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('blocked');
    expect(await countUserSessions(t.server.ctx.store, user.id)).toBe(0);
  });
});

describe('sign-in rate limits', () => {
  it('per login and address: after the limit even the right password gets 429, in any case, until the window passes; the handle counts apart', async () => {
    const windowMs = 1500;
    const s = await limitedServer({ signInPerAccountIp: 3, signInPerIp: 1000, windowMs });
    try {
      const { input } = await signUp(s);
      for (let i = 0; i < 3; i++) {
        const res = await signInWith(s.client(), input.email, `wrong-${i}`);
        expect(res.body).toEqual(INVALID);
      }
      for (const login of [input.email, `  ${input.email.toUpperCase()} `]) {
        const res = await signInWith(s.client(), login, PASSWORD);
        expect(res.status, login).toBe(429);
        expect(res.body.error).toBe('rate_limited');
        expect(sidOf(res)).toBeUndefined();
      }
      // The handle is another login with its own count (sharing one would tell a stranger
      // which e-mail is which @handle); '@handle' and 'handle' are the same login.
      for (let i = 0; i < 3; i++) {
        const res = await signInWith(s.client(), `@${input.username}`, `wrong-${i}`);
        expect(res.body).toEqual(INVALID);
      }
      expect((await signInWith(s.client(), input.username.toUpperCase(), PASSWORD)).status).toBe(429);
      // Another account is not affected.
      const other = await signUp(s);
      expect((await signInWith(s.client(), other.input.email, PASSWORD)).status).toBe(200);

      await new Promise((r) => setTimeout(r, windowMs + 200));
      const res = await signInWith(s.client(), input.email, PASSWORD);
      expect(res.status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it('per IP: failures across different accounts lead to 429, X-Forwarded-For does not help', async () => {
    const s = await limitedServer({ signInPerIp: 3, signInPerAccount: 1000, signInPerAccountIp: 1000 });
    try {
      const accounts = [await signUp(s), await signUp(s), await signUp(s), await signUp(s)];
      for (const a of accounts.slice(0, 3)) {
        expect((await signInWith(s.client(), a.input.email, 'wrong-pw')).status).toBe(401);
      }
      const last = accounts[3]?.input.email ?? '';
      const res = await signInWith(s.client(), last, PASSWORD);
      expect(res.status).toBe(429);
      expect(res.body.error).toBe('rate_limited');
      const spoofed = await signInWith(s.client({ 'x-forwarded-for': '198.51.100.7' }), last, PASSWORD);
      expect(spoofed.status).toBe(429);
    } finally {
      await s.close();
    }
  });
});

/**
 * Two-step sign-in over raw HTTP (issue 32), on SQLite and on PostgreSQL when
 * TEST_DATABASE_URL is set: an account sets up an authenticator app (recovery codes come with
 * the first way) and a passkey (a software authenticator speaking WebAuthn's formats); its
 * sign-in then gets no session and no keys until a code, a passkey or a recovery code passes;
 * each code and recovery code is good once; a pending sign-in has 5 tries and 5 minutes; a
 * forged passkey signature, another account's token or a stolen cookie-less token get nothing;
 * removing a way takes the password; an operator's REQUIRE_2FA makes an account without one
 * set up an app before it gets a session, and keeps its last way.
 */
import { API } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { runAdmin } from '../cli/admin.ts';
import { authOf } from '../test/accounts.ts';
import { captureOutput } from '../test/cli-output.ts';
import { ENGINES, LOOSE_LIMITS, signInWith, signUp, useTestServer } from '../test/harness.ts';
import { SoftAuthenticator } from '../test/soft-authenticator.ts';
import { codeAt } from './totp.ts';

const STEP = 30_000;

describe.each(ENGINES)('two-step sign-in on $name', ({ url }) => {
  const t = useTestServer({ engine: url, tag: 'twofa', config: { rateLimits: LOOSE_LIMITS } });

  /** An account with an app set up (and its recovery codes). */
  async function withApp() {
    const u = await signUp(t);
    const setup = await u.client.post(API.twoFactorTotp);
    expect(setup.status).toBe(200);
    expect(setup.body.uri).toMatch(/^otpauth:\/\/totp\/.*secret=/);
    // A wrong code does not turn it on; the right one does, with ten recovery codes.
    const auth = await authOf(u.client, u.input.password);
    expect((await u.client.post(`${API.twoFactorTotp}/confirm`, { code: '000000', auth })).status).toBe(400);
    // A session alone (a stolen cookie) cannot turn it on: the password confirms it.
    const wrong = await authOf(u.client, 'not the password 1');
    const code = codeAt(setup.body.secret);
    expect((await u.client.post(`${API.twoFactorTotp}/confirm`, { code, auth: wrong })).status).toBe(403);
    const on = await u.client.post(`${API.twoFactorTotp}/confirm`, { code, auth });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body.recoveryCodes).toHaveLength(10);
    return { ...u, secret: setup.body.secret as string, codes: on.body.recoveryCodes as string[] };
  }

  const login = async (u: { input: { username: string; password: string } }) => {
    const c = t.client();
    const r = await signInWith(c, u.input.username, u.input.password);
    return { c, r };
  };

  it('an app: no session or keys after the password; a code once; a recovery code once', async () => {
    const u = await withApp();
    const first = await login(u);
    expect(first.r.status).toBe(200);
    expect(first.r.body).toEqual({
      secondFactor: { token: expect.any(String), methods: ['totp', 'recovery'], enrol: false },
    });
    expect(first.c.cookie).toBeNull();
    expect((await first.c.get(API.session)).body).toEqual({ user: null });
    const token = first.r.body.secondFactor.token;
    expect((await first.c.post(API.secondFactor, { token, totp: '123456' })).status).toBe(401);
    // The code of the step already used to confirm the app is refused too (a code is good once).
    const now = Date.now();
    const code = codeAt(u.secret, now + STEP);
    const ok = await first.c.post(API.secondFactor, { token, totp: code });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.user.id).toBe(u.user.id);
    expect(ok.body.keys).not.toBeNull();
    expect(first.c.cookie).not.toBeNull();
    // The token is spent; the same code in another sign-in is refused.
    expect((await first.c.post(API.secondFactor, { token, totp: code })).status).toBe(401);
    const again = await login(u);
    expect((await again.c.post(API.secondFactor, { token: again.r.body.secondFactor.token, totp: code })).status).toBe(
      401,
    );
    const viaCode = await again.c.post(API.secondFactor, {
      token: again.r.body.secondFactor.token,
      recovery: (u.codes[0] as string).toUpperCase(),
    });
    expect(viaCode.status, JSON.stringify(viaCode.body)).toBe(200);
    const third = await login(u);
    expect(
      (await third.c.post(API.secondFactor, { token: third.r.body.secondFactor.token, recovery: u.codes[0] })).status,
    ).toBe(401);
    expect((await u.client.get(API.twoFactor)).body).toMatchObject({
      totp: true,
      recoveryCodesLeft: 9,
      required: false,
    });
  });

  it('a pending sign-in has five tries; its token is nobody else’s and is refused malformed', async () => {
    const u = await withApp();
    const { c, r } = await login(u);
    const token = r.body.secondFactor.token;
    for (let i = 0; i < 5; i++) expect((await c.post(API.secondFactor, { token, totp: '000000' })).status).toBe(401);
    const late = await c.post(API.secondFactor, { token, totp: codeAt(u.secret, Date.now() + 2 * STEP) });
    expect(late.status).toBe(401);
    expect(late.body.error).toBe('sign_in_expired');
    for (const bad of [
      { token },
      { token, totp: '12345' },
      { token: 'x', totp: '123456' },
      { token, totp: '123456', recovery: 'aaaaa-bbbbb' },
    ]) {
      expect((await c.post(API.secondFactor, bad)).status).toBe(400);
    }
    // Another account's code does not pass this one's sign-in.
    const other = await withApp();
    const mine = await login(u);
    const theirs = codeAt(other.secret, Date.now() + 3 * STEP);
    expect((await mine.c.post(API.secondFactor, { token: mine.r.body.secondFactor.token, totp: theirs })).status).toBe(
      401,
    );
  });

  it('a passkey: registered, then answers the sign-in’s challenge; a forged signature gets nothing', async () => {
    const u = await signUp(t);
    const device = new SoftAuthenticator(t.config.publicUrl);
    const options = await u.client.post(API.passkeyOptions);
    expect(options.status).toBe(200);
    const auth = await authOf(u.client, u.input.password);
    const noPassword = await u.client.post(API.passkeys, { name: 'Laptop', response: device.register(options.body) });
    expect(noPassword.status).toBe(400);
    const added = await u.client.post(API.passkeys, { name: 'Laptop', response: device.register(options.body), auth });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.recoveryCodes).toHaveLength(10);
    // The challenge was used: the same registration again is refused.
    expect(
      (await u.client.post(API.passkeys, { name: 'Again', response: device.register(options.body), auth })).status,
    ).toBe(400);
    const { c, r } = await login(u);
    expect(r.body.secondFactor.methods).toEqual(['passkey', 'recovery']);
    const token = r.body.secondFactor.token;
    const forged = await c.post(API.secondFactor, { token, passkey: device.assert(r.body.secondFactor.passkey, true) });
    expect(forged.status).toBe(401);
    // Another sign-in's challenge does not pass this one.
    const other = await login(u);
    const elsewhere = device.assert(other.r.body.secondFactor.passkey);
    expect((await c.post(API.secondFactor, { token, passkey: elsewhere })).status).toBe(401);
    const ok = await c.post(API.secondFactor, { token, passkey: device.assert(r.body.secondFactor.passkey) });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const status = await u.client.get(API.twoFactor);
    expect(status.body.passkeys).toEqual([
      { id: expect.any(String), name: 'Laptop', createdAt: expect.any(Number), lastUsedAt: expect.any(Number) },
    ]);
    // Removing it takes the password; with no way left, the recovery codes go too.
    const id = status.body.passkeys[0].id;
    expect(
      (await u.client.del(`${API.passkeys}/${id}`, { auth: await authOf(u.client, 'wrong password 1') })).status,
    ).toBe(403);
    expect(
      (await u.client.del(`${API.passkeys}/${id}`, { auth: await authOf(u.client, u.input.password) })).status,
    ).toBe(204);
    expect((await u.client.get(API.twoFactor)).body).toMatchObject({ passkeys: [], recoveryCodesLeft: 0 });
    const plain = await login(u);
    expect(plain.r.body.user.id).toBe(u.user.id);
  });

  it('without a session, none of the account’s ways can be read or changed', async () => {
    const anon = t.client();
    for (const [method, path] of [
      ['GET', API.twoFactor],
      ['POST', API.twoFactorTotp],
      ['POST', API.passkeyOptions],
      ['POST', API.recoveryCodes],
      ['DELETE', API.twoFactorTotp],
    ] as const) {
      expect((await anon.request(method, path, method === 'GET' ? undefined : {})).status, `${method} ${path}`).toBe(
        401,
      );
    }
  });
});

describe('when the operator requires two-step verification (REQUIRE_2FA)', () => {
  const t = useTestServer({ tag: 'twofareq', env: { REQUIRE_2FA: 'true' }, config: { rateLimits: LOOSE_LIMITS } });

  it('an account without a way sets up an app before it gets a session, and keeps its last way', async () => {
    const u = await signUp(t);
    const { c, r } = await (async () => {
      const c = t.client();
      return { c, r: await signInWith(c, u.input.username, u.input.password) };
    })();
    expect(r.body.secondFactor).toMatchObject({ methods: [], enrol: true });
    const token = r.body.secondFactor.token;
    // Nothing but setting up an app: a code cannot pass for an account that has none.
    expect((await c.post(API.secondFactor, { token, totp: '123456' })).status).toBe(401);
    const setup = await c.post(API.enrolTotp, { token });
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    const done = await c.post(`${API.enrolTotp}/confirm`, { token, code: codeAt(setup.body.secret) });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.user.id).toBe(u.user.id);
    expect(done.body.recoveryCodes).toHaveLength(10);
    expect(c.cookie).not.toBeNull();
    // The last way stays.
    const removed = await c.del(API.twoFactorTotp, { auth: await authOf(c, u.input.password) });
    expect(removed.status).toBe(409);
    expect(removed.body.error).toBe('two_factor_required');
    // An account that has a way cannot use the enrolment to set up another one without it.
    const next = await signInWith(t.client(), u.input.username, u.input.password);
    expect((await t.client().post(API.enrolTotp, { token: next.body.secondFactor.token })).status).toBe(403);

    // Lost every device and code: the operator resets it (sessions end); the next sign-in sets up anew.
    const out = captureOutput();
    expect(
      await runAdmin(
        ['users', 'reset-2fa', `@${u.input.username}`, '--yes'],
        { DATA_DIR: t.dataDir, REQUIRE_2FA: 'true' },
        out.out,
      ),
    ).toBe(0);
    expect(out.lines.join('\n')).toMatch(/This turns two-step verification off for the account/);
    expect(out.lines.join('\n')).toMatch(/Two-step verification of @\S+ is off; 2 sessions ended/);
    expect((await c.get(API.session)).body).toEqual({ user: null });
    const fresh = await signInWith(t.client(), u.input.username, u.input.password);
    expect(fresh.body.secondFactor).toMatchObject({ methods: [], enrol: true });
  });
});

/** E-mail verification, password reset and the administrator, against a real server and its outbox. */

import { MSG, resetPasswordSchema } from '@app/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '../config.ts';
import { credentialsFor, resetPasswordBody, TEST_KDF } from '../test/accounts.ts';
import {
  signInWith,
  signUp,
  startTestServer,
  type TestResponse,
  type TestServer,
  verifyEmail,
} from '../test/harness.ts';
import { countUserSessions } from '../test/store-queries.ts';

const VERIFY = '/api/auth/verify-email';
const RESEND = '/api/auth/resend-verification';
const FORGOT = '/api/auth/forgot-password';
const RESET = '/api/auth/reset-password';
const SESSION = '/api/session';
const STATS = '/api/admin/stats';
const PASSWORD = 'secret123';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({
    config: {
      rateLimits: { ...DEFAULT_RATE_LIMITS, signUpPerIp: 1000, signInPerIp: 1000, mailPerIp: 1000, mailPerAccount: 3 },
    },
  });
});
afterAll(async () => {
  await t?.close();
});

/** Tokens of every link to `linkPath` in mails to `to` (oldest first). */
function tokensIn(to: string, linkPath: string): string[] {
  return t
    .outbox()
    .filter((m) => m.to.includes(to))
    .flatMap((m) => m.links)
    .filter((l) => l.includes(`${linkPath}?token=`))
    .map((l) => new URL(l).searchParams.get('token') ?? '');
}

/** Waits for a link to `linkPath` in a mail to `to` whose token is not in `seen`. */
async function newToken(to: string, linkPath: string, seen: string[] = []): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const fresh = tokensIn(to, linkPath).filter((tok) => !seen.includes(tok));
    const last = fresh.at(-1);
    if (last) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no new ${linkPath} link for ${to}`);
}

function expectInvalidLink(res: TestResponse<{ message?: string }>): void {
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ error: 'invalid_token', message: MSG.invalidLink });
  expect(res.body.message).toBe('This link is invalid or has expired');
}

describe('e-mail verification', () => {
  it('the link marks the address verified, once', async () => {
    const { client, input, user } = await signUp(t);
    expect((await client.get(SESSION)).body.user.emailVerified).toBe(false);
    const token = await newToken(input.email, '/verify-email');

    const res = await t.client().post(VERIFY, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ user: null }); // the link was opened signed out
    expect((await client.get(SESSION)).body.user.emailVerified).toBe(true);
    expect((await t.server.ctx.store.userById(user.id))?.emailVerified).toBe(true);

    expectInvalidLink(await t.client().post(VERIFY, { token }));
    expectInvalidLink(await client.post(VERIFY, { token }));
  });

  it('opened in the signed-in browser, it returns the updated user', async () => {
    const { client, input } = await signUp(t);
    const token = await newToken(input.email, '/verify-email');
    const res = await client.post(VERIFY, { token });
    expect(res.status).toBe(200);
    expect(res.body.user.emailVerified).toBe(true);
  });

  it('a made-up or malformed token → 400', async () => {
    expectInvalidLink(await t.client().post(VERIFY, { token: 'A'.repeat(43) }));
    for (const token of ['short', `${'A'.repeat(40)}'--`, '', 42, null]) {
      const res = await t.client().post(VERIFY, { token });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(MSG.invalidLink);
    }
    expect((await t.client().post(VERIFY, {})).status).toBe(400);
  });

  it('resend sends a new mail and voids the old link', async () => {
    const { client, input, user } = await signUp(t);
    const first = await newToken(input.email, '/verify-email');
    const res = await client.post(RESEND);
    expect(res.status).toBe(204);
    const second = await newToken(input.email, '/verify-email', [first]);
    expect(second).not.toBe(first);

    expectInvalidLink(await t.client().post(VERIFY, { token: first }));
    expect((await t.client().post(VERIFY, { token: second })).status).toBe(200);
    expect((await t.server.ctx.store.userById(user.id))?.emailVerified).toBe(true);
    // Already verified: nothing more to send.
    expect((await client.post(RESEND)).status).toBe(204);
  });

  it('resend is rate-limited per account (mailPerAccount) with 429', async () => {
    const { client } = await signUp(t);
    for (let i = 0; i < 3; i++) expect((await client.post(RESEND)).status).toBe(204);
    const res = await client.post(RESEND);
    expect(res.status).toBe(429);
    expect(res.body.error).toBe('rate_limited');
    // Another account has its own allowance.
    const other = await signUp(t);
    expect((await other.client.post(RESEND)).status).toBe(204);
  });

  it('resend needs a session', async () => {
    const res = await t.client().post(RESEND);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthenticated');
  });
});

describe('password reset', () => {
  it('forgot-password answers 204 for known and unknown e-mails alike', async () => {
    const { input } = await signUp(t);
    const unknown = `nobody_${Date.now()}@example.com`;
    const a = await t.client().post(FORGOT, { email: unknown });
    const b = await t.client().post(FORGOT, { email: input.email.toUpperCase() });
    expect(a.status).toBe(204);
    expect(b.status).toBe(204);
    expect(a.body).toEqual(b.body);
    await newToken(input.email, '/reset-password');
    expect(t.outbox().some((m) => m.to.includes(unknown))).toBe(false);

    const bad = await t.client().post(FORGOT, { email: 'not-an-email' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe(MSG.email);
  });

  it('the link resets the password, ends every session, and works once', async () => {
    const { client, input, user } = await signUp(t);
    const second = t.client();
    expect((await signInWith(second, input.username, PASSWORD)).status).toBe(200);
    expect(await countUserSessions(t.server.ctx.store, user.id)).toBe(2);

    expect((await t.client().post(FORGOT, { email: input.email })).status).toBe(204);
    const token = await newToken(input.email, '/reset-password');
    // A reset token is not a verification token.
    expectInvalidLink(await t.client().post(VERIFY, { token }));

    // The new password's rules are the reset form's; the server sees only credentials.
    expect(resetPasswordSchema.safeParse({ token, password: '12345' }).error?.issues[0]?.message).toBe(MSG.password);
    const good = await resetPasswordBody(token, 'brand-new-pw');
    const weak = await credentialsFor('brand-new-pw', { ...TEST_KDF, r: 4 });
    for (const [bad, message] of [
      [{ token, password: 'brand-new-pw' }, undefined],
      [{ ...good, credentials: { ...good.credentials, auth: '12345' } }, MSG.invalidCredentials],
      [{ ...good, credentials: weak.credentials }, 'The password was derived with parameters too weak for this server'],
    ] as const) {
      const refused = await t.client().post(RESET, bad);
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      expect(refused.body.error).toBe('invalid_input');
      if (message) expect(refused.body.message).toBe(message);
    }
    // …and those refusals did not use the link up.
    const res = await t.client().post(RESET, good);
    expect(res.status).toBe(204);

    expect(await countUserSessions(t.server.ctx.store, user.id)).toBe(0);
    expect((await client.get(SESSION)).body).toEqual({ user: null });
    expect((await second.get(SESSION)).body).toEqual({ user: null });

    const old = await signInWith(t.client(), input.email, PASSWORD);
    expect(old.status).toBe(401);
    const fresh = t.client();
    const ok = await signInWith(fresh, input.email, 'brand-new-pw');
    expect(ok.status).toBe(200);
    // Following the link proved the mailbox.
    expect(ok.body.user.emailVerified).toBe(true);
    // The keys are still sealed by the old password, which the server never knew.
    expect(ok.body.keys).toMatchObject({ stale: true, salt: good.credentials.salt, bundleVersion: 1 });

    expectInvalidLink(await t.client().post(RESET, await resetPasswordBody(token, 'another-pw-1')));
    expect((await signInWith(t.client(), input.email, 'brand-new-pw')).status).toBe(200);
    expect((await signInWith(t.client(), input.email, 'another-pw-1')).status).toBe(401);
  });

  it('a newer reset mail voids the older link; a made-up token → 400', async () => {
    const { input } = await signUp(t);
    await t.client().post(FORGOT, { email: input.email });
    const first = await newToken(input.email, '/reset-password');
    await t.client().post(FORGOT, { email: input.email });
    const second = await newToken(input.email, '/reset-password', [first]);
    expectInvalidLink(await t.client().post(RESET, await resetPasswordBody(first, 'another-pw-1')));
    expect((await t.client().post(RESET, await resetPasswordBody(second, 'another-pw-1'))).status).toBe(204);
    expectInvalidLink(await t.client().post(RESET, await resetPasswordBody('B'.repeat(43), 'another-pw-1')));
    expect((await signInWith(t.client(), input.email, 'another-pw-1')).status).toBe(200);
  });
});

describe('the administrator', () => {
  it('is admin only once the ADMIN_EMAIL address is verified', async () => {
    const admin = await signUp(t, { email: 'Admin@example.com' });
    const signUpView = await admin.client.get(SESSION);
    expect(signUpView.body.user.isAdmin).toBe(false);
    const early = await admin.client.get(STATS);
    expect(early.status).toBe(403);
    expect(early.body.error).toBe('forbidden');

    await verifyEmail(t, 'Admin@example.com');
    const after = await admin.client.get(SESSION);
    expect(after.body.user).toMatchObject({ emailVerified: true, isAdmin: true });

    const stats = await admin.client.get(STATS);
    expect(stats.status).toBe(200);
    expect(stats.body).toEqual({ totalUsers: await t.server.ctx.store.countUsers() });
    expect(stats.body.totalUsers).toBeGreaterThan(0);
  });

  it('GET /api/admin/stats: 401 signed out, 403 for a regular (even verified) user', async () => {
    const signedOut = await t.client().get(STATS);
    expect(signedOut.status).toBe(401);
    expect(signedOut.body.error).toBe('unauthenticated');

    const regular = await signUp(t);
    await verifyEmail(t, regular.input.email);
    const res = await regular.client.get(STATS);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('forbidden');
    expect((await regular.client.get(SESSION)).body.user.isAdmin).toBe(false);
  });
});

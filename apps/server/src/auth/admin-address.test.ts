/**
 * The administrator's address (ADMIN_EMAIL): taken only while no account holds it, the
 * administrator only once verified by its link, and taken back by its owner through a
 * password reset when a stranger signed up with it first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authOf, resetPasswordBody } from '../test/accounts.ts';
import {
  expectError,
  LOOSE_LIMITS,
  newUserInput,
  signInWith,
  signUp,
  signUpBody,
  startTestServer,
  type TestServer,
} from '../test/harness.ts';

const ADMIN = 'owner@example.com';
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ env: { ADMIN_EMAIL: ADMIN }, config: { rateLimits: LOOSE_LIMITS } });
});
afterAll(async () => {
  await t?.close();
});

async function tokenFrom(to: string, path: string): Promise<string> {
  const mail = await t.mailTo(to, path.includes('reset') ? /reset/i : /Verify/);
  const link = mail.links.find((l) => l.includes(`${path}?token=`));
  return new URL(link as string).searchParams.get('token') as string;
}

describe('the administrator’s address', () => {
  it('a stranger who signs up with it first is not the administrator, and the owner takes it back by a reset', async () => {
    const stranger = await signUp(t, { email: ADMIN });
    expect((await stranger.client.get('/api/session')).body.user).toMatchObject({
      isAdmin: false,
      emailVerified: false,
    });
    expectError(await stranger.client.get('/api/admin/stats'), 403, 'forbidden');

    // The owner cannot sign up with it, in any case, nor move another account onto it.
    const owner = t.client();
    expectError(
      await owner.post('/api/auth/signup', (await signUpBody({ ...newUserInput(), email: ADMIN.toUpperCase() })).body),
      409,
      'email_taken',
    );
    const other = await signUp(t);
    expectError(
      await other.client.post('/api/account/email', {
        newEmail: ADMIN,
        auth: await authOf(other.client, other.input.password),
      }),
      409,
      'email_taken',
    );

    // "Forgot password" sends the reset link to the address, which only its owner reads.
    expect((await owner.post('/api/auth/forgot-password', { email: ADMIN })).status).toBe(204);
    const token = await tokenFrom(ADMIN, '/reset-password');
    expect((await owner.post('/api/auth/reset-password', await resetPasswordBody(token, 'owners-own-pw'))).status).toBe(
      204,
    );
    // The stranger is out; the owner signs in as the administrator.
    expectError(await stranger.client.get('/api/admin/stats'), 401, 'unauthenticated');
    expect((await signInWith(t.client(), ADMIN, stranger.input.password)).status).toBe(401);
    const signIn = await signInWith(owner, ADMIN, 'owners-own-pw');
    expect(signIn.status).toBe(200);
    expect(signIn.body.user).toMatchObject({ isAdmin: true, emailVerified: true });
    // The stranger's keys stay sealed by the stranger's password: the owner cannot open them.
    expect(signIn.body.keys).toMatchObject({ stale: true });
    expect((await owner.get('/api/admin/stats')).status).toBe(200);
  });

  it('once verified, nobody else can take it', async () => {
    const { body } = await signUpBody({ ...newUserInput(), email: ADMIN });
    expectError(await t.client().post('/api/auth/signup', body), 409, 'email_taken');
  });
});

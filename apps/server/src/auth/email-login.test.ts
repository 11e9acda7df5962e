/**
 * The e-mail address's own credential (docs/e2ee.md, "Two logins, two salts"; issue 28,
 * attack 8): prelogin answers an address with a salt of its own, so an address and a
 * handle are never linked by their answers; signing in with the address is checked against
 * its own hash and handed its `wrap`, which gives back the handle's keys; every new
 * password (change, reset, the operator's CLI) replaces it; an account whose password was
 * set before it keeps signing in with the handle's salt. Runs on SQLite, and on PostgreSQL
 * too when TEST_DATABASE_URL is set.
 */
import { openBundle, openEmailWrap } from '@app/e2ee';
import { API, MSG } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import {
  changePasswordBody,
  credentialsFor,
  deriveKeys,
  resetPasswordBody,
  resetToken,
  TEST_KDF,
} from '../test/accounts.ts';
import {
  ENGINES,
  expectError,
  LOOSE_LIMITS,
  newUserInput,
  signInWith,
  signUp,
  signUpBody,
  useTestServer,
} from '../test/harness.ts';

const INVALID = { error: 'invalid_credentials', message: MSG.invalidCredentials };

describe.each(ENGINES)('on $name', ({ url }) => {
  const t = useTestServer({ engine: url, tag: 'emaillogin', config: { rateLimits: LOOSE_LIMITS } });
  const saltOf = async (login: string) =>
    ((await t.client().post(API.prelogin, { login })).body as { salt: string }).salt;
  /** The `auth` a browser sends for `login` (its prelogin salt). */
  const authFor = async (login: string, password: string) =>
    (await deriveKeys(password, await saltOf(login), TEST_KDF)).auth;

  it("an address signs in with its own salt and `auth`, and its wrap opens the handle's keys", async () => {
    const { input, user, secrets } = await signUp(t);
    const [emailSalt, handleSalt] = [await saltOf(input.email), await saltOf(input.username)];
    expect(emailSalt).not.toBe(handleSalt);

    const byEmail = await signInWith(t.client(), input.email.toUpperCase(), input.password);
    expect(byEmail.status, JSON.stringify(byEmail.body)).toBe(200);
    const emailKeys = await deriveKeys(input.password, emailSalt, TEST_KDF);
    const handle = await openEmailWrap(emailKeys, byEmail.body.wrap);
    expect(handle.auth).toBe((await deriveKeys(input.password, handleSalt, TEST_KDF)).auth);
    expect(await openBundle(byEmail.body.keys.bundle, handle.wrapKey, user.id, 1)).toEqual(secrets.contents);

    // The handle signs in as before, with nothing to open.
    const byHandle = await signInWith(t.client(), `@${input.username}`, input.password);
    expect(byHandle.status).toBe(200);
    expect(byHandle.body.wrap).toBeUndefined();
  });

  it("each login takes only its own `auth`: the handle's is refused for the address, and the other way round", async () => {
    const { input } = await signUp(t);
    const handleAuth = await authFor(input.username, input.password);
    const emailAuth = await authFor(input.email, input.password);
    expect(handleAuth).not.toBe(emailAuth);
    expect((await t.client().post(API.signIn, { login: input.email, auth: handleAuth })).body).toEqual(INVALID);
    expect((await t.client().post(API.signIn, { login: input.username, auth: emailAuth })).body).toEqual(INVALID);
  });

  it('an account whose password was set before it: the address answers and takes the handle’s salt, with no wrap', async () => {
    const { input, user } = await signUp(t);
    await t.server.ctx.store.db.updateTable('users').set({ email_login: null }).where('id', '=', user.id).execute();
    expect(await saltOf(input.email)).toBe(await saltOf(input.username));
    const res = await signInWith(t.client(), input.email, input.password);
    expect(res.status).toBe(200);
    expect(res.body.wrap).toBeUndefined();
  });

  it('an account from before gets its own at sign-in: told so, given it with the password’s `auth`, once per password', async () => {
    const { client, input, user } = await signUp(t);
    const db = t.server.ctx.store.db;
    await db.updateTable('users').set({ email_login: null }).where('id', '=', user.id).execute();
    const signedIn = await signInWith(client, input.username, input.password);
    expect(signedIn.body.sharedSalt).toBe(true);
    const own = signedIn.body.keys as { salt: string };
    const { email } = (await credentialsFor(input.password)).credentials;
    const auth = await authFor(input.username, input.password);

    // Refused: another password's `auth`, a malformed credential, no session.
    expectError(
      await client.request('PUT', API.emailLogin, { auth: await authFor(input.username, 'not-it'), email }),
      403,
      'wrong_password',
    );
    expectError(
      await client.request('PUT', API.emailLogin, { auth, email: { ...email, wrap: 'x' } }),
      400,
      'invalid_input',
    );
    expect((await t.client().request('PUT', API.emailLogin, { auth, email })).status).toBe(401);
    expect(await saltOf(input.email)).toBe(own.salt);

    expect((await client.request('PUT', API.emailLogin, { auth, email })).status).toBe(204);
    expect(await saltOf(input.email)).toBe(email.salt);
    expect(await saltOf(input.email)).not.toBe(own.salt);
    const again = await signInWith(t.client(), input.username, input.password);
    expect(again.body.sharedSalt).toBeUndefined();

    // A password changed meanwhile: the write that checked the old one is refused.
    const row = await db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(
      await t.server.ctx.keys.setEmailLogin(user.id, `${row.password_hash}x`, { authHash: 'h', salt: 's', wrap: 'w' }),
    ).toBe(false);
    expect(await saltOf(input.email)).toBe(email.salt);
  });

  it('a password change and a reset each replace it: the old one signs in no more', async () => {
    const { client, input, user, secrets } = await signUp(t);
    const before = await saltOf(input.email);
    const oldEmailAuth = await authFor(input.email, input.password);
    const change = await changePasswordBody(client, user.id, secrets.contents, input.password, 'changed-pw-1');
    expect((await client.post(API.changePassword, change.body)).status).toBe(200);
    const changed = await saltOf(input.email);
    expect(changed).not.toBe(before);
    expect((await t.client().post(API.signIn, { login: input.email, auth: oldEmailAuth })).body).toEqual(INVALID);
    const signedIn = await signInWith(t.client(), input.email, 'changed-pw-1');
    expect(signedIn.status).toBe(200);
    const handle = await openEmailWrap(await deriveKeys('changed-pw-1', changed, TEST_KDF), signedIn.body.wrap);
    expect(await openBundle(signedIn.body.keys.bundle, handle.wrapKey, user.id, 2)).toEqual(secrets.contents);

    const reset = await resetPasswordBody(await resetToken(t, input.email), 'reset-pw-1');
    expect((await t.client().post(API.resetPassword, reset)).status).toBe(204);
    expect(await saltOf(input.email)).toBe(reset.credentials.email.salt);
    expect((await signInWith(t.client(), input.email, 'changed-pw-1')).body).toEqual(INVALID);
    expect((await signInWith(t.client(), input.email, 'reset-pw-1')).status).toBe(200);
  });

  it('refuses new credentials without the address’s own, or with a malformed one, and creates nothing', async () => {
    const input = newUserInput();
    const { body } = await signUpBody(input);
    const { email: _, ...noEmail } = body.credentials;
    for (const credentials of [
      noEmail,
      { ...body.credentials, email: { ...body.credentials.email, wrap: body.credentials.email.wrap.slice(1) } },
      { ...body.credentials, email: { ...body.credentials.email, salt: 'short' } },
      { ...body.credentials, email: { ...body.credentials.email, extra: 1 } },
    ]) {
      expectError(await t.client().post(API.signUp, { ...body, credentials }), 400, 'invalid_input');
    }
    const row = await t.server.ctx.store.userByEmail(input.email);
    expect(row).toBeNull();
    // The same body, whole, is taken.
    expect(
      (await t.client().post(API.signUp, { ...body, credentials: (await credentialsFor('x')).credentials })).status,
    ).toBe(201);
  });
});

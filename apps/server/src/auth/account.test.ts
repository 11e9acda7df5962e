/** /account: change e-mail, change password, delete the account, against a real server. */

import { changeEmailSchema, changePasswordSchema, MSG } from '@app/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authOf,
  changePasswordBody,
  credentialsFor,
  ownKeysOf,
  randomAuth,
  resetPasswordBody,
} from '../test/accounts.ts';
import {
  expectError,
  LOOSE_LIMITS,
  signInWith,
  signUp,
  signUpBody,
  startTestServer,
  type TestServer,
  verifyEmail,
} from '../test/harness.ts';
import { countUserSessions } from '../test/store-queries.ts';

const EMAIL = '/api/account/email';
const PASSWORD_PATH = '/api/account/password';
const ACCOUNT = '/api/account';
const SESSION = '/api/session';
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

const signIn = (login: string, password: string) => signInWith(t.client(), login, password);

describe('change e-mail', () => {
  it('requires the right current password', async () => {
    const { client, input, user } = await signUp(t);
    for (const auth of [await authOf(client, 'wrong-pw'), randomAuth()]) {
      const res = await client.post(EMAIL, { newEmail: `new_${input.email}`, auth });
      expectError(res, 403, 'wrong_password', MSG.wrongPassword);
    }
    // The password itself is not the credential.
    const plain = await client.post(EMAIL, { newEmail: `new_${input.email}`, auth: PASSWORD });
    expectError(plain, 400, 'invalid_input', MSG.invalidCredentials);
    expect((await t.server.ctx.store.userById(user.id))?.email).toBe(input.email);
  });

  it("rejects empty fields with 'Please fill in all fields'", async () => {
    const { client, input } = await signUp(t);
    const auth = await authOf(client, PASSWORD);
    for (const body of [{}, { newEmail: '', auth }, { newEmail: '   ', auth }, { auth }]) {
      expectError(await client.post(EMAIL, body), 400, 'invalid_input', MSG.fillAll);
    }
    // The password field is the form's (the browser checks it before deriving `auth`);
    // the server sees only a missing or malformed `auth`.
    for (const currentPassword of ['', undefined]) {
      const form = changeEmailSchema.safeParse({ newEmail: `new_${input.email}`, currentPassword });
      expect(form.error?.issues[0]?.message).toBe(MSG.fillAll);
    }
    for (const body of [{ newEmail: `new_${input.email}`, auth: '' }, { newEmail: `new_${input.email}` }]) {
      expectError(await client.post(EMAIL, body), 400, 'invalid_input', MSG.invalidCredentials);
    }
    expectError(
      await client.post(EMAIL, { newEmail: `new_${input.email}`, currentPassword: PASSWORD }),
      400,
      'invalid_input',
    );
    expectError(await client.post(EMAIL, { newEmail: 'nope', auth }), 400, 'invalid_input', MSG.email);
  });

  it('rejects an address in use by another account (any case), or its own', async () => {
    const { client, input } = await signUp(t);
    const other = await signUp(t);
    const auth = await authOf(client, PASSWORD);
    const res = await client.post(EMAIL, { newEmail: other.input.email.toUpperCase(), auth });
    expectError(res, 409, 'email_taken', MSG.emailTaken);
    const same = await client.post(EMAIL, { newEmail: input.email.toUpperCase(), auth });
    expectError(same, 400, 'invalid_input');
  });

  it('needs a session', async () => {
    expectError(
      await t.client().post(EMAIL, { newEmail: 'a@example.com', auth: randomAuth() }),
      401,
      'unauthenticated',
    );
  });

  it('changes the address, unverifies it, mails the new address and tells the old one', async () => {
    const { client, input, user } = await signUp(t);
    await verifyEmail(t, input.email);
    expect((await client.get(SESSION)).body.user.emailVerified).toBe(true);

    const newEmail = `moved_${input.email}`;
    const res = await client.post(EMAIL, { newEmail, auth: await authOf(client, PASSWORD) });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ id: user.id, email: newEmail, emailVerified: false });
    const stored = await t.server.ctx.store.userById(user.id);
    expect(stored).toMatchObject({ email: newEmail, emailVerified: false });

    const verify = await t.mailTo(newEmail, /Verify/);
    expect(verify.links.some((l) => l.includes('/verify-email?token='))).toBe(true);
    const notice = await t.mailTo(input.email, /e-mail address was changed/);
    expect(notice.text).toContain(newEmail);

    expect((await signIn(input.email, PASSWORD)).status).toBe(401);
    expect((await signIn(newEmail, PASSWORD)).status).toBe(200);

    await verifyEmail(t, newEmail);
    expect((await client.get(SESSION)).body.user).toMatchObject({ email: newEmail, emailVerified: true });
    // The old address is free again.
    const { body } = await signUpBody({ ...input, username: `${input.username}_b` });
    expect((await t.client().post('/api/auth/signup', body)).status).toBe(201);
  });
  it('a reset link mailed to the old address stops working after the change', async () => {
    const { client, input } = await signUp(t);
    expect((await t.client().post('/api/auth/forgot-password', { email: input.email })).status).toBe(204);
    const mail = await t.mailTo(input.email, /Reset/);
    const token = new URL(mail.links.find((l) => l.includes('/reset-password?token=')) ?? '').searchParams.get('token');
    const newEmail = `other_${input.email}`;
    expect((await client.post(EMAIL, { newEmail, auth: await authOf(client, PASSWORD) })).status).toBe(200);
    const res = await t.client().post('/api/auth/reset-password', await resetPasswordBody(token, 'hijacked-pw'));
    expectError(res, 400, 'invalid_token', MSG.invalidLink);
    expect((await ownKeysOf(client)).stale).toBe(false);
    expect((await signIn(newEmail, PASSWORD)).status).toBe(200);
  });
});

describe('change password', () => {
  it('requires the current password and a valid new one', async () => {
    const { client, input, user, secrets } = await signUp(t);
    const before = await ownKeysOf(client);
    const wrong = await changePasswordBody(client, user.id, secrets.contents, 'wrong-pw', 'another-pw');
    expectError(await client.post(PASSWORD_PATH, wrong.body), 403, 'wrong_password', MSG.wrongPassword);
    // What the form checks before anything is derived: both fields, and the new password's rules.
    for (const [form, message] of [
      [{}, MSG.fillAll],
      [{ currentPassword: '', newPassword: 'another-pw' }, MSG.fillAll],
      [{ currentPassword: PASSWORD, newPassword: '' }, MSG.fillAll],
      [{ currentPassword: PASSWORD, newPassword: '12345' }, MSG.password],
      [{ currentPassword: PASSWORD, newPassword: 'x'.repeat(129) }, MSG.passwordMax],
    ] as const) {
      expect(changePasswordSchema.safeParse(form).error?.issues[0]?.message, JSON.stringify(form)).toBe(message);
    }
    // What the server checks: every part present and well formed, no password, no weak KDF.
    const { body } = await changePasswordBody(client, user.id, secrets.contents, PASSWORD, 'another-pw');
    const { auth: _, ...noAuth } = body;
    const { credentials: __, ...noCredentials } = body;
    const { bundle: ___, ...noBundle } = body;
    for (const [bad, message] of [
      [{}, MSG.invalidCredentials],
      [noAuth, MSG.invalidCredentials],
      [{ ...body, auth: PASSWORD }, MSG.invalidCredentials],
      [noCredentials, undefined],
      [noBundle, 'Invalid key bundle'],
      [{ ...body, bundle: 'not a bundle' }, 'Invalid key bundle'],
      [{ ...body, bundleVersion: 1 }, undefined],
      [{ ...body, credentials: { ...body.credentials, auth: 'short' } }, MSG.invalidCredentials],
      [{ ...body, credentials: { ...body.credentials, kdf: { ...body.credentials.kdf, N: 2 ** 9 } } }, undefined],
      [
        { ...body, currentPassword: PASSWORD, newPassword: 'another-pw' },
        'Unknown field: currentPassword, newPassword',
      ],
    ] as const) {
      expectError(await client.post(PASSWORD_PATH, bad), 400, 'invalid_input', message);
    }
    // r below this server's 8: derived too cheaply for it.
    const weak = await credentialsFor('another-pw', { alg: 'scrypt', N: 2 ** 10, r: 4, p: 1 });
    expectError(
      await client.post(PASSWORD_PATH, { ...body, credentials: weak.credentials }),
      400,
      'invalid_input',
      'The password was derived with parameters too weak for this server',
    );
    // Nothing changed.
    expect(await ownKeysOf(client)).toEqual(before);
    expect((await signIn(input.email, PASSWORD)).status).toBe(200);
    expect((await signIn(input.email, 'another-pw')).status).toBe(401);
    expect((await client.get(SESSION)).body.user).not.toBeNull();
  });

  it('ends the other sessions, keeps this one with a rotated cookie, and the old password fails', async () => {
    const { client, input, user, secrets } = await signUp(t);
    const earlier = t.client();
    expect((await signInWith(earlier, input.username, PASSWORD)).status).toBe(200);
    const before = client.cookie;
    const keysBefore = await ownKeysOf(client);

    const change = await changePasswordBody(client, user.id, secrets.contents, PASSWORD, 'changed-pw-1');
    const res = await client.post(PASSWORD_PATH, change.body);
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(user.id);
    expect(client.cookie).toBeTruthy();
    expect(client.cookie).not.toBe(before);

    expect((await client.get(SESSION)).body.user.id).toBe(user.id);
    expect((await earlier.get(SESSION)).body).toEqual({ user: null });
    const stale = t.client();
    stale.cookie = before;
    expect((await stale.get(SESSION)).body).toEqual({ user: null });
    expect(await countUserSessions(t.server.ctx.store, user.id)).toBe(1);

    expect((await signIn(input.email, PASSWORD)).status).toBe(401);
    const ok = await signIn(input.email, 'changed-pw-1');
    expect(ok.status).toBe(200);
    // The same keys (the history stays readable), re-sealed under the new password's salt.
    expect(ok.body.keys).toEqual({
      ...keysBefore,
      bundle: change.body.bundle,
      bundleVersion: keysBefore.bundleVersion + 1,
      kdf: change.body.credentials.kdf,
      salt: change.body.credentials.salt,
    });
    expect(ok.body.keys.salt).not.toBe(keysBefore.salt);
    await t.mailTo(input.email, /password was changed/);
  });
});

describe('delete account', () => {
  /** Makes the user's sign-ins look older than the re-authentication window. */
  async function ageSignIns(userId: string): Promise<void> {
    await t.server.ctx.store.db
      .updateTable('sessions')
      .set({ auth_at: Date.now() - t.config.reauthWindowMs - 60_000 })
      .where('user_id', '=', userId)
      .execute();
  }

  it("403 reauth_required 'Please re-login and try again' when the sign-in is too old; a fresh sign-in can", async () => {
    const { client, input, user } = await signUp(t);
    await ageSignIns(user.id);
    const res = await client.del(ACCOUNT, { auth: await authOf(client, PASSWORD) });
    expectError(res, 403, 'reauth_required', 'Please re-login and try again');
    expect(await t.server.ctx.store.userById(user.id)).not.toBeNull();
    expect((await client.get(SESSION)).body.user.id).toBe(user.id);

    expect((await signInWith(client, input.email, PASSWORD)).status).toBe(200);
    expect((await client.del(ACCOUNT, { auth: await authOf(client, PASSWORD) })).status).toBe(204);
    expect(await t.server.ctx.store.userById(user.id)).toBeNull();
  });

  it('with reauthWindowMs 0 every sign-in is too old', async () => {
    const strict = await startTestServer({ config: { reauthWindowMs: 0 } });
    try {
      const { client, user } = await signUp(strict);
      await strict.server.ctx.store.db
        .updateTable('sessions')
        .set({ auth_at: Date.now() - 1000 })
        .where('user_id', '=', user.id)
        .execute();
      expectError(
        await client.del(ACCOUNT, { auth: await authOf(client, PASSWORD) }),
        403,
        'reauth_required',
        MSG.deleteFailed,
      );
      expect(await strict.server.ctx.store.userById(user.id)).not.toBeNull();
    } finally {
      await strict.close();
    }
  });

  it('needs the password (its `auth`), not a session alone; refuses any other body', async () => {
    const { client, user } = await signUp(t);
    expectError(await client.del(ACCOUNT), 400, 'invalid_input');
    expectError(await client.del(ACCOUNT, { confirm: true }), 400, 'invalid_input');
    expectError(await client.del(ACCOUNT, { auth: randomAuth() }), 403, 'wrong_password');
    const auth = await authOf(client, PASSWORD);
    expectError(await client.del(ACCOUNT, { auth, confirm: true }), 400, 'invalid_input');
    expect(await t.server.ctx.store.userById(user.id)).not.toBeNull();
    expectError(await t.client().del(ACCOUNT, { auth }), 401, 'unauthenticated');
    expect((await client.del(ACCOUNT, { auth })).status).toBe(204);
  });

  it('removes the user, sessions and settings; frees the handle and e-mail; keeps only the peer’s messages', async () => {
    const store = t.server.ctx.store;
    const db = store.db;
    const { client, input, user } = await signUp(t);
    const peer = await signUp(t);
    const second = t.client();
    expect((await signInWith(second, input.email, PASSWORD)).status).toBe(200);

    const chatId = [user.id, peer.user.id].sort().join('_');
    const now = Date.now();
    const msg = (id: string, from: string, to: string, text: string, ts: number) => ({
      chat_id: chatId,
      id,
      sender_id: from,
      recipient_id: to,
      text,
      timestamp: ts,
      status: 'sent' as const,
      edited: 0 as const,
      deleted: 0 as const,
      delivered_at: null,
      read_at: null,
    });
    await db
      .insertInto('messages')
      .values([
        msg('m1', user.id, peer.user.id, 'hello from the leaver', now),
        msg('m2', peer.user.id, user.id, 'hello from the peer', now + 1),
        msg('m3', user.id, peer.user.id, 'bye', now + 2),
      ])
      .execute();
    const summary = (owner: string, other: string) => ({
      user_id: owner,
      chat_id: chatId,
      peer_id: other,
      last_message: 'bye',
      timestamp: now + 2,
      unread_count: 0,
      archived: 0 as const,
      locked: 0 as const,
    });
    await db
      .insertInto('user_chats')
      .values([summary(user.id, peer.user.id), summary(peer.user.id, user.id)])
      .execute();

    const res = await client.del(ACCOUNT, { auth: await authOf(client, PASSWORD) });
    expect(res.status).toBe(204);
    expect(client.cookie).toBeNull();

    expect(await store.userById(user.id)).toBeNull();
    expect(await countUserSessions(store, user.id)).toBe(0);
    expect((await second.get(SESSION)).body).toEqual({ user: null });
    expect(await db.selectFrom('user_settings').selectAll().where('user_id', '=', user.id).execute()).toEqual([]);
    expect(await db.selectFrom('email_tokens').selectAll().where('user_id', '=', user.id).execute()).toEqual([]);
    expect(await db.selectFrom('user_keys').selectAll().where('user_id', '=', user.id).execute()).toEqual([]);

    const left = await db.selectFrom('messages').select(['id', 'sender_id']).where('chat_id', '=', chatId).execute();
    expect(left).toEqual([{ id: 'm2', sender_id: peer.user.id }]);
    const chats = await db.selectFrom('user_chats').select('user_id').where('chat_id', '=', chatId).execute();
    expect(chats).toEqual([{ user_id: peer.user.id }]);
    // The peer is untouched.
    expect(await store.userById(peer.user.id)).not.toBeNull();
    expect((await peer.client.get(SESSION)).body.user.id).toBe(peer.user.id);

    // The username and e-mail can be registered again, in any case.
    expect((await signIn(input.email, PASSWORD)).status).toBe(401);
    const { body } = await signUpBody({
      ...input,
      username: input.username.toUpperCase(),
      email: input.email.toUpperCase(),
    });
    const again = await t.client().post('/api/auth/signup', body);
    expect(again.status).toBe(201);
    expect(again.body.user.id).not.toBe(user.id);
  });
});

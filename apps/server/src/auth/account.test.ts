/** /account: change e-mail, change password, delete the account, against a real server. */

import { MSG } from '@app/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, LOOSE_LIMITS, signUp, startTestServer, type TestServer, verifyEmail } from '../test/harness.ts';
import { countUserSessions } from '../test/store-queries.ts';

const EMAIL = '/api/account/email';
const PASSWORD_PATH = '/api/account/password';
const ACCOUNT = '/api/account';
const SESSION = '/api/session';
const SIGNIN = '/api/auth/signin';
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

const signIn = (login: string, password: string) => t.client().post(SIGNIN, { login, password });

describe('change e-mail', () => {
  it('requires the right current password', async () => {
    const { client, input, user } = await signUp(t);
    const res = await client.post(EMAIL, { newEmail: `new_${input.email}`, currentPassword: 'wrong-pw' });
    expectError(res, 403, 'wrong_password', MSG.wrongPassword);
    expect((await t.server.ctx.store.userById(user.id))?.email).toBe(input.email);
  });

  it("rejects empty fields with 'Please fill in all fields'", async () => {
    const { client, input } = await signUp(t);
    for (const body of [
      {},
      { newEmail: '', currentPassword: PASSWORD },
      { newEmail: '   ', currentPassword: PASSWORD },
      { newEmail: `new_${input.email}`, currentPassword: '' },
      { newEmail: `new_${input.email}` },
      { currentPassword: PASSWORD },
    ]) {
      expectError(await client.post(EMAIL, body), 400, 'invalid_input', MSG.fillAll);
    }
    expectError(
      await client.post(EMAIL, { newEmail: 'nope', currentPassword: PASSWORD }),
      400,
      'invalid_input',
      MSG.email,
    );
  });

  it('rejects an address in use by another account (any case), or its own', async () => {
    const { client, input } = await signUp(t);
    const other = await signUp(t);
    const res = await client.post(EMAIL, { newEmail: other.input.email.toUpperCase(), currentPassword: PASSWORD });
    expectError(res, 409, 'email_taken', MSG.emailTaken);
    const same = await client.post(EMAIL, { newEmail: input.email.toUpperCase(), currentPassword: PASSWORD });
    expectError(same, 400, 'invalid_input');
  });

  it('needs a session', async () => {
    expectError(
      await t.client().post(EMAIL, { newEmail: 'a@example.com', currentPassword: PASSWORD }),
      401,
      'unauthenticated',
    );
  });

  it('changes the address, unverifies it, mails the new address and tells the old one', async () => {
    const { client, input, user } = await signUp(t);
    await verifyEmail(t, input.email);
    expect((await client.get(SESSION)).body.user.emailVerified).toBe(true);

    const newEmail = `moved_${input.email}`;
    const res = await client.post(EMAIL, { newEmail, currentPassword: PASSWORD });
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
    expect((await t.client().post('/api/auth/signup', { ...input, username: `${input.username}_b` })).status).toBe(201);
  });
  it('a reset link mailed to the old address stops working after the change', async () => {
    const { client, input } = await signUp(t);
    expect((await t.client().post('/api/auth/forgot-password', { email: input.email })).status).toBe(204);
    const mail = await t.mailTo(input.email, /Reset/);
    const token = new URL(mail.links.find((l) => l.includes('/reset-password?token=')) ?? '').searchParams.get('token');
    const newEmail = `other_${input.email}`;
    expect((await client.post(EMAIL, { newEmail, currentPassword: PASSWORD })).status).toBe(200);
    const res = await t.client().post('/api/auth/reset-password', { token, password: 'hijacked-pw' });
    expectError(res, 400, 'invalid_token', MSG.invalidLink);
    expect((await signIn(newEmail, PASSWORD)).status).toBe(200);
  });
});

describe('change password', () => {
  it('requires the current password and a valid new one', async () => {
    const { client, input } = await signUp(t);
    const wrong = await client.post(PASSWORD_PATH, { currentPassword: 'wrong-pw', newPassword: 'another-pw' });
    expectError(wrong, 403, 'wrong_password', MSG.wrongPassword);
    for (const body of [
      {},
      { currentPassword: '', newPassword: 'another-pw' },
      { currentPassword: PASSWORD, newPassword: '' },
    ]) {
      expectError(await client.post(PASSWORD_PATH, body), 400, 'invalid_input', MSG.fillAll);
    }
    const short = await client.post(PASSWORD_PATH, { currentPassword: PASSWORD, newPassword: '12345' });
    expectError(short, 400, 'invalid_input', MSG.password);
    // Nothing changed.
    expect((await signIn(input.email, PASSWORD)).status).toBe(200);
    expect((await client.get(SESSION)).body.user).not.toBeNull();
  });

  it('ends the other sessions, keeps this one with a rotated cookie, and the old password fails', async () => {
    const { client, input, user } = await signUp(t);
    const earlier = t.client();
    expect((await earlier.post(SIGNIN, { login: input.username, password: PASSWORD })).status).toBe(200);
    const before = client.cookie;

    const res = await client.post(PASSWORD_PATH, { currentPassword: PASSWORD, newPassword: 'changed-pw-1' });
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
    expect((await signIn(input.email, 'changed-pw-1')).status).toBe(200);
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
    const res = await client.del(ACCOUNT);
    expectError(res, 403, 'reauth_required', 'Please re-login and try again');
    expect(await t.server.ctx.store.userById(user.id)).not.toBeNull();
    expect((await client.get(SESSION)).body.user.id).toBe(user.id);

    expect((await client.post(SIGNIN, { login: input.email, password: PASSWORD })).status).toBe(200);
    expect((await client.del(ACCOUNT)).status).toBe(204);
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
      expectError(await client.del(ACCOUNT), 403, 'reauth_required', MSG.deleteFailed);
      expect(await strict.server.ctx.store.userById(user.id)).not.toBeNull();
    } finally {
      await strict.close();
    }
  });

  it('refuses a body, and needs a session', async () => {
    const { client, user } = await signUp(t);
    expectError(await client.del(ACCOUNT, { confirm: true }), 400, 'invalid_input');
    expect(await t.server.ctx.store.userById(user.id)).not.toBeNull();
    expectError(await t.client().del(ACCOUNT), 401, 'unauthenticated');
  });

  it('removes the user, sessions and settings; frees the handle and e-mail; keeps only the peer’s messages', async () => {
    const store = t.server.ctx.store;
    const db = store.db;
    const { client, input, user } = await signUp(t);
    const peer = await signUp(t);
    const second = t.client();
    expect((await second.post(SIGNIN, { login: input.email, password: PASSWORD })).status).toBe(200);

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

    const res = await client.del(ACCOUNT);
    expect(res.status).toBe(204);
    expect(client.cookie).toBeNull();

    expect(await store.userById(user.id)).toBeNull();
    expect(await countUserSessions(store, user.id)).toBe(0);
    expect((await second.get(SESSION)).body).toEqual({ user: null });
    expect(await db.selectFrom('user_settings').selectAll().where('user_id', '=', user.id).execute()).toEqual([]);
    expect(await db.selectFrom('email_tokens').selectAll().where('user_id', '=', user.id).execute()).toEqual([]);

    const left = await db.selectFrom('messages').select(['id', 'sender_id']).where('chat_id', '=', chatId).execute();
    expect(left).toEqual([{ id: 'm2', sender_id: peer.user.id }]);
    const chats = await db.selectFrom('user_chats').select('user_id').where('chat_id', '=', chatId).execute();
    expect(chats).toEqual([{ user_id: peer.user.id }]);
    // The peer is untouched.
    expect(await store.userById(peer.user.id)).not.toBeNull();
    expect((await peer.client.get(SESSION)).body.user.id).toBe(peer.user.id);

    // The username and e-mail can be registered again, in any case.
    expect((await signIn(input.email, PASSWORD)).status).toBe(401);
    const again = await t.client().post('/api/auth/signup', {
      ...input,
      username: input.username.toUpperCase(),
      email: input.email.toUpperCase(),
    });
    expect(again.status).toBe(201);
    expect(again.body.user.id).not.toBe(user.id);
  });
});

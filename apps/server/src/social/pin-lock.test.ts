/**
 * The chat PIN (set, change, remove, verify, lock-out) and archived or locked chats
 * against a real server, the client bypassed: raw HTTP with the session cookie and raw
 * WebSocket frames. Runs on SQLite, and on PostgreSQL too when TEST_DATABASE_URL is set.
 */
import { API, chatIdOf, MSG, PIN_FAILURES_MAX, PIN_GRANT_MS, PIN_LOCKOUT_MS } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { authOf, randomAuth } from '../test/accounts.ts';
import { ENGINES, expectError, LOOSE_LIMITS, useTestServer } from '../test/harness.ts';
import { connectedPerson, setPin, settle, signInAgain } from '../test/people.ts';
import { WsTestClient } from '../test/ws-client.ts';

const PIN_FORMAT = 'PIN must be exactly 6 digits';
const PIN_LOCKED = 'Too many wrong PINs. Try again in 15 minutes.';
const CHAT_LOCKED = 'This chat is locked. Enter your PIN to open it.';

describe.each(ENGINES)('on $name', ({ url }) => {
  const t = useTestServer({ engine: url, tag: 'pin', config: { rateLimits: LOOSE_LIMITS } });
  const person = () => connectedPerson(t);

  async function userRow(id: string) {
    const r = await t.server.ctx.store.db
      .selectFrom('users')
      .select(['pin_hash', 'pin_failures', 'pin_locked_until'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return {
      hash: r.pin_hash,
      failures: Number(r.pin_failures),
      lockedUntil: r.pin_locked_until === null ? null : Number(r.pin_locked_until),
    };
  }

  describe('PIN', () => {
    it('must be six digits; the hash is argon2id, never the PIN', async () => {
      const a = await person();
      for (const pin of ['12345', '1234567', 'abcdef', '12 456', ' 123456', 123456, null]) {
        const res = await a.client.request('PUT', API.pin, { pin });
        expectError(res, 400, 'invalid_input', PIN_FORMAT);
        expect(res.body.issues?.[0]?.path).toBe('pin');
      }
      expectError(await a.client.request('PUT', API.pin, {}), 400, 'invalid_input', PIN_FORMAT);
      expectError(await a.client.request('PUT', API.pin, { pin: '123456', hash: 'x' }), 400, 'invalid_input');
      expectError(await t.client().request('PUT', API.pin, { pin: '123456' }), 401, 'unauthenticated');
      expect((await a.client.get(API.privacy)).body).toMatchObject({ hasPin: false, pinLockedUntil: null });
      // Nothing to verify or remove yet.
      expectError(await a.client.post(API.verifyPin, { pin: '123456' }), 400, 'no_pin', 'You have not set a PIN');
      expectError(await a.client.del(API.pin, { auth: await authOf(a.client, a.input.password) }), 400, 'no_pin');

      const set = await a.client.request('PUT', API.pin, { pin: '123456' });
      expect(set.status).toBe(200);
      expect(set.body).toEqual({
        privacy: { readReceipts: true, lastSeen: true, requireRequest: false },
        hasPin: true,
        pinLockedUntil: null,
      });
      const row = await userRow(a.user.id);
      expect(row.hash).toMatch(/^\$argon2id\$/);
      expect(row.hash).not.toContain('123456');
      expectError(await a.client.post(API.verifyPin, { pin: '12345' }), 400, 'invalid_input', PIN_FORMAT);
      expect((await a.client.post(API.verifyPin, { pin: '123456' })).status).toBe(200);
    });

    it('changing or removing an existing PIN needs the account password', async () => {
      const a = await person();
      await setPin(a, '123456');
      const first = (await userRow(a.user.id)).hash;

      expectError(
        await a.client.request('PUT', API.pin, { pin: '654321' }),
        403,
        'wrong_password',
        'Enter your account password to change or remove your PIN',
      );
      const wrong = await authOf(a.client, 'not-my-password');
      for (const auth of [wrong, randomAuth()]) {
        expectError(
          await a.client.request('PUT', API.pin, { pin: '654321', auth }),
          403,
          'wrong_password',
          'The password is incorrect',
        );
      }
      // An empty or malformed `auth`, or the password itself, is no credential.
      for (const body of [
        { pin: '654321', auth: '' },
        { pin: '654321', auth: 'not-my-password' },
        { pin: '654321', password: a.input.password },
      ]) {
        expectError(await a.client.request('PUT', API.pin, body), 400, 'invalid_input');
      }
      expect((await userRow(a.user.id)).hash).toBe(first);
      expectError(await a.client.post(API.verifyPin, { pin: '654321' }), 403, 'invalid_pin');

      const auth = await authOf(a.client, a.input.password);
      const changed = await a.client.request('PUT', API.pin, { pin: '654321', auth });
      expect(changed.status).toBe(200);
      const second = (await userRow(a.user.id)).hash;
      expect(second).toMatch(/^\$argon2id\$/);
      expect(second).not.toBe(first);
      expectError(await a.client.post(API.verifyPin, { pin: '123456' }), 403, 'invalid_pin');
      expect((await a.client.post(API.verifyPin, { pin: '654321' })).status).toBe(200);

      expectError(await a.client.del(API.pin, {}), 400, 'invalid_input', MSG.invalidCredentials);
      expectError(await a.client.del(API.pin, { password: a.input.password }), 400, 'invalid_input');
      expectError(await a.client.del(API.pin, { auth: wrong }), 403, 'wrong_password');
      expect((await userRow(a.user.id)).hash).toBe(second);
      const removed = await a.client.del(API.pin, { auth });
      expect(removed.status).toBe(200);
      expect(removed.body).toMatchObject({ hasPin: false, pinLockedUntil: null });
      expect((await userRow(a.user.id)).hash).toBeNull();
      expectError(await a.client.post(API.verifyPin, { pin: '654321' }), 400, 'no_pin');
      // With no PIN left, a new first one needs no password again.
      await setPin(a, '111111');
    });

    it('the fifth wrong PIN in a row locks checks out for 15 minutes, even for the right PIN', async () => {
      const a = await person();
      const bystander = await person();
      await setPin(a, '123456');
      await setPin(bystander, '123456');

      const wrong = () => a.client.post(API.verifyPin, { pin: '000000' });
      for (const left of ['4 attempts left', '3 attempts left', '2 attempts left', '1 attempt left']) {
        expectError(await wrong(), 403, 'invalid_pin', `Invalid PIN - Please try again (${left})`);
      }
      expect((await userRow(a.user.id)).failures).toBe(PIN_FAILURES_MAX - 1);
      // The right PIN resets the count.
      const before = Date.now();
      const grant = await a.client.post(API.verifyPin, { pin: '123456' });
      expect(grant.status).toBe(200);
      expect(grant.body.until).toBeGreaterThanOrEqual(before + PIN_GRANT_MS);
      expect(grant.body.until).toBeLessThanOrEqual(Date.now() + PIN_GRANT_MS);
      expect((await userRow(a.user.id)).failures).toBe(0);
      expectError(await wrong(), 403, 'invalid_pin', 'Invalid PIN - Please try again (4 attempts left)');
      for (let i = 0; i < PIN_FAILURES_MAX - 2; i++) expectError(await wrong(), 403, 'invalid_pin');

      const t0 = Date.now();
      const locked = await wrong();
      const t1 = Date.now();
      expectError(locked, 429, 'pin_locked', PIN_LOCKED);
      const retryAt = locked.body.retryAt as number;
      expect(retryAt).toBeGreaterThanOrEqual(t0 + PIN_LOCKOUT_MS);
      expect(retryAt).toBeLessThanOrEqual(t1 + PIN_LOCKOUT_MS);
      expect((await a.client.get(API.privacy)).body.pinLockedUntil).toBe(retryAt);

      // Refused until then, right or wrong, and from any session of the account.
      const right = await a.client.post(API.verifyPin, { pin: '123456' });
      expectError(right, 429, 'pin_locked', PIN_LOCKED);
      expect(right.body.retryAt).toBe(retryAt);
      expectError(await wrong(), 429, 'pin_locked');
      const other = await signInAgain(t, a);
      expectError(await other.post(API.verifyPin, { pin: '123456' }), 429, 'pin_locked');
      expect(await userRow(a.user.id)).toMatchObject({ failures: 0, lockedUntil: retryAt });
      // Someone else's PIN is not affected.
      expect((await bystander.client.post(API.verifyPin, { pin: '123456' })).status).toBe(200);

      // Fifteen minutes later (the lock-out moved into the past): checks resume, counted afresh.
      await t.server.ctx.store.db
        .updateTable('users')
        .set({ pin_locked_until: Date.now() - 1 })
        .where('id', '=', a.user.id)
        .execute();
      expect((await a.client.get(API.privacy)).body.pinLockedUntil).toBeNull();
      expectError(await wrong(), 403, 'invalid_pin', 'Invalid PIN - Please try again (4 attempts left)');
      expect((await a.client.post(API.verifyPin, { pin: '123456' })).status).toBe(200);
      expect(await userRow(a.user.id)).toMatchObject({ failures: 0, lockedUntil: null });
    });
  });

  describe('archive', () => {
    it('archived true/false is logged as a chat update to every socket of the user, and only theirs', async () => {
      const a = await person();
      const b = await person();
      await b.ws.sendMessage(a.user.id, 'one');
      const aTab = await WsTestClient.connect(t, a.client.cookie);
      const seq = a.ws.lastSeq;
      const bSeq = b.ws.lastSeq;

      const r = await a.ws.request('chatFlags', { peerId: b.user.id, archived: true });
      expect(r.chat).toMatchObject({ chatId: chatIdOf(a.user.id, b.user.id), archived: true, locked: false });
      for (const ws of [a.ws, aTab]) {
        await ws.waitFor(() =>
          ws.updates().some((u) => u.seq > seq && u.update.kind === 'chat' && u.update.chat.archived),
        );
      }
      const archived = (await a.ws.request('chats')).chats[0];
      expect(archived).toMatchObject({ archived: true, last: { senderId: b.user.id, deleted: false } });
      expect(archived && (await a.ws.lastText(archived))).toBe('one');
      // The flag is a's alone.
      await settle(b.ws);
      expect(b.ws.updates().filter((u) => u.seq > bSeq)).toEqual([]);
      expect((await b.ws.request('chats')).chats[0]?.archived).toBe(false);

      // Setting the same flag again changes nothing and logs nothing.
      const again = a.ws.lastSeq;
      await a.ws.request('chatFlags', { peerId: b.user.id, archived: true });
      expect(await t.server.ctx.chat.currentSeq(a.user.id)).toBe(again);

      const un = await a.ws.request('chatFlags', { peerId: b.user.id, archived: false });
      expect(un.chat.archived).toBe(false);
      await aTab.waitFor(() =>
        aTab.updates().some((u) => u.seq > again && u.update.kind === 'chat' && !u.update.chat.archived),
      );
      // A socket that was away gets both changes from the log.
      const resumed = await WsTestClient.connect(t, a.client.cookie, seq);
      await resumed.waitFor(() => resumed.updates().length >= 2);
      expect(resumed.updates().map((u) => u.update.kind === 'chat' && u.update.chat.archived)).toEqual([true, false]);
      await resumed.close();
      await aTab.close();
    });

    it('refuses empty changes and chats the user is not part of', async () => {
      const a = await person();
      const b = await person();
      const eve = await person();
      await b.ws.sendMessage(a.user.id, 'between a and b');
      expect(await a.ws.requestError('chatFlags', { peerId: b.user.id })).toMatchObject({
        code: 'invalid_frame',
        message: 'Nothing to change',
      });
      expect((await a.ws.requestError('chatFlags', { peerId: b.user.id, archived: 'yes' })).code).toBe('invalid_frame');
      // eve has no chat with either of them: there is nothing of hers to flag.
      for (const peerId of [a.user.id, b.user.id, eve.user.id, 'A'.repeat(20)]) {
        expect(await eve.ws.requestError('chatFlags', { peerId, archived: true })).toMatchObject({ code: 'not_found' });
        expect(await eve.ws.requestError('chatFlags', { peerId, locked: false })).toMatchObject({ code: 'not_found' });
      }
      await setPin(eve, '123456');
      expect(await eve.ws.requestError('chatFlags', { peerId: a.user.id, locked: true })).toMatchObject({
        code: 'not_found',
      });
      for (const p of [a, b]) {
        expect((await p.ws.request('chats')).chats[0]).toMatchObject({ archived: false, locked: false });
      }
    });
  });

  describe('locked chats', () => {
    it('locking needs a PIN; without a grant the text stays on the server; a grant opens the session', async () => {
      const a = await person();
      const b = await person();
      const first = await b.ws.sendMessage(a.user.id, 'secret one');
      expect(await a.ws.requestError('chatFlags', { peerId: b.user.id, locked: true })).toMatchObject({
        code: 'pin_required',
        message: 'Set a PIN in Privacy settings first',
      });
      const open = (await a.ws.request('chats')).chats[0];
      expect(open).toMatchObject({ locked: false, last: { id: first.id, ct: first.ct } });
      expect(open && (await a.ws.lastText(open))).toBe('secret one');

      await setPin(a, '123456');
      const aTab = await WsTestClient.connect(t, a.client.cookie);
      const seq = a.ws.lastSeq;
      const locked = await a.ws.request('chatFlags', { peerId: b.user.id, locked: true });
      expect(locked.chat).toMatchObject({ locked: true, last: null });
      await aTab.waitFor(() => aTab.updates().some((u) => u.update.kind === 'chat' && u.update.chat.locked));
      const lockedAt = (ws: WsTestClient) =>
        ws.frames.findIndex((f) => f.t === 'update' && f.update.kind === 'chat' && f.update.chat.locked);

      for (const ws of [a.ws, aTab]) {
        expect(await ws.requestError('history', { peerId: b.user.id })).toMatchObject({
          code: 'locked',
          message: CHAT_LOCKED,
        });
        expect(
          await ws.requestError('history', { peerId: b.user.id, before: { timestamp: Date.now(), id: 'zzzzzzzz' } }),
        ).toMatchObject({ code: 'locked' });
        expect((await ws.request('chats')).chats[0]).toMatchObject({ locked: true, last: null, unreadCount: 1 });
      }

      // New messages (and edits) still arrive, without their ciphertext; the sender sees theirs in full.
      const sent = await b.ws.sendMessage(a.user.id, 'secret two');
      expect(await b.ws.textOf(sent)).toBe('secret two');
      await a.ws.waitFor(() =>
        a.ws.updates().some((u) => u.seq > seq && u.update.kind === 'message' && u.update.message.id === sent.id),
      );
      const arrived = a.ws.updates().find((u) => u.update.kind === 'message' && u.update.message.id === sent.id);
      expect(arrived?.update).toMatchObject({
        message: { id: sent.id, senderId: b.user.id, ct: null, legacyText: null },
      });
      expect(
        b.ws.updates().find((u) => u.update.kind === 'message' && u.update.message.id === sent.id)?.update,
      ).toMatchObject({ message: { ct: sent.ct } });
      const edited = await b.ws.editMessage(sent.chatId, sent.id, 'secret edited');
      const sealedTexts = [first.ct, sent.ct, edited.ct] as string[];
      await a.ws.waitFor(() => a.ws.updates().some((u) => u.update.kind === 'message' && u.update.message.edited));
      await aTab.waitFor(() => aTab.updates().some((u) => u.update.kind === 'message' && u.update.message.edited));
      await settle(a.ws);
      for (const ws of [a.ws, aTab]) {
        // Everything from the lock on: its update and result, the refusals, the new message and the edit.
        const pushed = ws.frames.slice(lockedAt(ws));
        expect(pushed.length).toBeGreaterThan(6);
        for (const ct of sealedTexts) expect(JSON.stringify(pushed)).not.toContain(ct);
      }
      // Replaying the whole log does not show it either.
      const replay = await WsTestClient.connect(t, a.client.cookie, 0);
      expect(replay.welcome?.resumed).toBe(true);
      await settle(replay);
      expect(replay.updates().length).toBeGreaterThan(0);
      for (const ct of sealedTexts) expect(JSON.stringify(replay.frames)).not.toContain(ct);
      await replay.close();

      // Unlocking would show it: it needs a grant too.
      expect(await a.ws.requestError('chatFlags', { peerId: b.user.id, locked: false })).toMatchObject({
        code: 'locked',
      });
      expect(await a.ws.requestError('chatFlags', { peerId: b.user.id, archived: true, locked: false })).toMatchObject({
        code: 'locked',
      });
      expect((await a.ws.request('chats')).chats[0]).toMatchObject({ locked: true, archived: false });

      expectError(await a.client.post(API.verifyPin, { pin: '999999' }), 403, 'invalid_pin');
      expectError(await t.client().post(API.verifyPin, { pin: '123456' }), 401, 'unauthenticated');
      expect(await a.ws.requestError('history', { peerId: b.user.id })).toMatchObject({ code: 'locked' });
      const grant = await a.client.post(API.verifyPin, { pin: '123456' });
      expect(grant.status).toBe(200);
      const session = await t.server.ctx.store.db
        .selectFrom('sessions')
        .select('pin_unlocked_until')
        .where('user_id', '=', a.user.id)
        .executeTakeFirstOrThrow();
      expect(Number(session.pin_unlocked_until)).toBe(grant.body.until);

      // The same sockets, and a new socket of the same session, now see the text.
      const newTab = await WsTestClient.connect(t, a.client.cookie);
      for (const ws of [a.ws, aTab, newTab]) {
        const history = (await ws.request('history', { peerId: b.user.id })).messages;
        expect(history.map((m) => `${m.ct}/${m.rev}`)).toEqual([`${first.ct}/0`, `${edited.ct}/1`]);
        expect(await ws.historyTexts(b.user.id)).toEqual(['secret one', 'secret edited']);
        const chat = (await ws.request('chats')).chats[0];
        expect(chat).toMatchObject({ locked: true, last: { id: sent.id, ct: edited.ct, rev: 1 } });
        expect(chat && (await ws.lastText(chat))).toBe('secret edited');
      }
      const live = await b.ws.sendMessage(a.user.id, 'secret three');
      await newTab.waitFor(() =>
        newTab.updates().some((u) => u.update.kind === 'message' && u.update.message.ct === live.ct),
      );
      expect(await newTab.textOf(live)).toBe('secret three');

      // Another session of the same account has no grant.
      const other = await signInAgain(t, a);
      const otherWs = await WsTestClient.connect(t, other.cookie);
      expect(await otherWs.requestError('history', { peerId: b.user.id })).toMatchObject({ code: 'locked' });
      expect((await otherWs.request('chats')).chats[0]).toMatchObject({ locked: true, last: null });

      // An expired grant opens nothing (a new socket reads the grant from the session).
      await t.server.ctx.store.db
        .updateTable('sessions')
        .set({ pin_unlocked_until: Date.now() - 1 })
        .where('pin_unlocked_until', '=', grant.body.until)
        .execute();
      const late = await WsTestClient.connect(t, a.client.cookie);
      expect(await late.requestError('history', { peerId: b.user.id })).toMatchObject({ code: 'locked' });
      await late.close();
      expect((await a.client.post(API.verifyPin, { pin: '123456' })).status).toBe(200);

      // Unlocking under the grant shows the chat to every socket again, grant or not.
      const oSeq = otherWs.lastSeq;
      expect((await a.ws.request('chatFlags', { peerId: b.user.id, locked: false })).chat).toMatchObject({
        locked: false,
        last: { id: live.id, ct: live.ct },
      });
      await otherWs.waitFor(() =>
        otherWs.updates().some((u) => u.seq > oSeq && u.update.kind === 'chat' && !u.update.chat.locked),
      );
      expect((await otherWs.request('history', { peerId: b.user.id })).messages).toHaveLength(3);
      for (const ws of [aTab, newTab, otherWs]) await ws.close();
    });

    it('removing the PIN unlocks every locked chat', async () => {
      const a = await person();
      const b = await person();
      const c = await person();
      await b.ws.sendMessage(a.user.id, 'from b');
      await c.ws.sendMessage(a.user.id, 'from c');
      await setPin(a, '123456');
      await a.ws.request('chatFlags', { peerId: b.user.id, locked: true });
      await a.ws.request('chatFlags', { peerId: c.user.id, locked: true, archived: true });
      const other = await signInAgain(t, a);
      const otherWs = await WsTestClient.connect(t, other.cookie);
      for (const peerId of [b.user.id, c.user.id]) {
        expect((await otherWs.requestError('history', { peerId })).code).toBe('locked');
      }

      // Without the password nothing changes.
      const wrong = await authOf(a.client, 'not-my-password');
      expectError(await a.client.del(API.pin, { auth: wrong }), 403, 'wrong_password');
      expect((await otherWs.request('chats')).chats.every((ch) => ch.locked)).toBe(true);

      const seq = otherWs.lastSeq;
      const auth = await authOf(a.client, a.input.password);
      expect((await a.client.del(API.pin, { auth })).status).toBe(200);
      await otherWs.waitFor(
        () =>
          otherWs.updates().filter((u) => u.seq > seq && u.update.kind === 'chat' && !u.update.chat.locked).length >= 2,
      );
      const chats = (await otherWs.request('chats')).chats;
      const previews = await Promise.all(chats.map(async (ch) => [ch.peerId, ch.locked, await otherWs.lastText(ch)]));
      expect(previews.sort()).toEqual(
        [
          [b.user.id, false, 'from b'],
          [c.user.id, false, 'from c'],
        ].sort(),
      );
      // Archiving is kept.
      expect(chats.find((ch) => ch.peerId === c.user.id)?.archived).toBe(true);
      expect(await otherWs.historyTexts(b.user.id)).toEqual(['from b']);
      expect(await a.ws.historyTexts(c.user.id)).toEqual(['from c']);
      const rows = await t.server.ctx.store.db
        .selectFrom('user_chats')
        .select('locked')
        .where('user_id', '=', a.user.id)
        .execute();
      expect(rows.map((r) => r.locked)).toEqual([0, 0]);
      // No PIN, no locking.
      expect((await a.ws.requestError('chatFlags', { peerId: b.user.id, locked: true })).code).toBe('pin_required');
      await otherWs.close();
    });
  });
});

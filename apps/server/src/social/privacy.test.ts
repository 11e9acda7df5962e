/**
 * Profile editing, read receipts and last seen against a real server, the client
 * bypassed: raw HTTP with the session cookie and raw WebSocket frames. Runs on SQLite,
 * and on PostgreSQL too when TEST_DATABASE_URL is set.
 */
import { API, type ChatMessage, type DownFrame } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { ENGINES, expectError, LOOSE_LIMITS, useTestServer } from '../test/harness.ts';
import { connectedPerson, setPrivacy, settle } from '../test/people.ts';
import { WsTestClient } from '../test/ws-client.ts';

const PICTURE_MSG = 'Picture URL must start with http:// or https://';

describe.each(ENGINES)('on $name', ({ url }) => {
  const t = useTestServer({ engine: url, tag: 'priv', config: { rateLimits: LOOSE_LIMITS } });
  const person = () => connectedPerson(t);

  function messageUpdates(ws: WsTestClient, afterSeq = 0): ChatMessage[] {
    return ws.updates().flatMap((u) => (u.seq > afterSeq && u.update.kind === 'message' ? [u.update.message] : []));
  }

  function presenceFrames(ws: WsTestClient, from = 0) {
    return ws.frames
      .slice(from)
      .filter((f): f is Extract<DownFrame, { t: 'presence' }> => f.t === 'presence')
      .map((f) => f.presence);
  }

  describe('profile', () => {
    const base = { name: 'New Name', phone: '5551234567', age: 30, profilePic: null };

    it('validates name, phone and age with the sign-up rules and their exact messages', async () => {
      const a = await person();
      const cases: [Record<string, unknown>, string, string][] = [
        [{ name: 'A' }, 'name', 'Name must be at least 2 characters'],
        [{ name: '   ' }, 'name', 'Name must be at least 2 characters'],
        [{ name: 'x'.repeat(51) }, 'name', 'Name must be at most 50 characters'],
        [{ name: 42 }, 'name', 'Name must be at least 2 characters'],
        [{ phone: '123' }, 'phone', 'Invalid phone number'],
        [{ phone: 'abcdefghijkl' }, 'phone', 'Invalid phone number'],
        [{ phone: '1'.repeat(16) }, 'phone', 'Invalid phone number'],
        [{ age: 12 }, 'age', 'Age must be between 13 and 120'],
        [{ age: 121 }, 'age', 'Age must be between 13 and 120'],
        [{ age: 20.5 }, 'age', 'Age must be between 13 and 120'],
        [{ age: '30' }, 'age', 'Age must be between 13 and 120'],
      ];
      for (const [change, path, message] of cases) {
        const res = await a.client.request('PUT', API.profile, { ...base, ...change });
        expectError(res, 400, 'invalid_input', message);
        expect(res.body.issues?.[0]?.path).toBe(path);
      }
      // Boundaries that pass.
      for (const change of [{ name: 'Al', age: 13 }, { name: 'x'.repeat(50), age: 120 }, { phone: '+15551234567' }]) {
        expect((await a.client.request('PUT', API.profile, { ...base, ...change })).status).toBe(200);
      }
    });

    it('refuses non-http(s) picture URLs, unknown fields and unauthenticated callers; nothing is saved', async () => {
      const a = await person();
      for (const pic of [
        'javascript:alert(1)',
        'JAVASCRIPT:alert(document.cookie)',
        '  javascript:alert(1)',
        'data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=',
        'data:text/html,<script>alert(1)</script>',
        'ftp://example.com/a.png',
        'file:///etc/passwd',
        '//evil.example.com/a.png',
        'not a url',
      ]) {
        const res = await a.client.request('PUT', API.profile, { ...base, profilePic: pic });
        expectError(res, 400, 'invalid_input', PICTURE_MSG);
        expect(res.body.issues?.[0]?.path).toBe('profilePic');
      }
      expectError(
        await a.client.request('PUT', API.profile, { ...base, username: 'taken_over' }),
        400,
        'invalid_input',
        'Unknown field: username',
      );
      expectError(
        await a.client.request('PUT', API.profile, { ...base, isAdmin: true, verified: true }),
        400,
        'invalid_input',
      );
      expectError(
        await a.client.request('PUT', API.profile, { ...base, email: 'x@example.com' }),
        400,
        'invalid_input',
      );
      expectError(await a.client.request('PUT', API.profile, {}), 400, 'invalid_input');
      expectError(await t.client().request('PUT', API.profile, base), 401, 'unauthenticated');
      const forged = t.client();
      forged.cookie = `${a.client.cookie}x`;
      expectError(await forged.request('PUT', API.profile, base), 401, 'unauthenticated');

      const me = (await a.client.get(API.session)).body.user;
      expect(me).toMatchObject({
        username: a.input.username,
        email: a.input.email,
        name: a.input.name,
        profilePic: null,
        verified: false,
        isAdmin: false,
      });
    });

    it('saves an https picture, and an empty one as none; trims the fields', async () => {
      const a = await person();
      const pic = 'https://pics.example.com/me.png?size=200';
      const saved = await a.client.request('PUT', API.profile, {
        name: '  Ada Lovelace ',
        phone: ' 5550001111 ',
        age: 36,
        profilePic: ` ${pic} `,
      });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      expect(saved.body.user).toMatchObject({
        id: a.user.id,
        username: a.input.username,
        name: 'Ada Lovelace',
        phone: '5550001111',
        age: 36,
        profilePic: pic,
      });
      expect((await a.client.get(API.session)).body.user).toMatchObject({ name: 'Ada Lovelace', profilePic: pic });
      expect(
        (await a.client.request('PUT', API.profile, { ...base, profilePic: 'http://pics.example.com/a.png' })).status,
      ).toBe(200);

      const cleared = await a.client.request('PUT', API.profile, { ...base, profilePic: '' });
      expect(cleared.status).toBe(200);
      expect(cleared.body.user.profilePic).toBeNull();
      const row = await t.server.ctx.store.db
        .selectFrom('users')
        .select(['profile_pic', 'name'])
        .where('id', '=', a.user.id)
        .executeTakeFirst();
      expect(row).toEqual({ profile_pic: null, name: 'New Name' });
    });

    it('tells users who have a chat with the saver, live and on resume; strangers hear nothing', async () => {
      const a = await person();
      const b = await person();
      const stranger = await person();
      await b.ws.sendMessage(a.user.id, 'hi');
      const bSeq = b.ws.lastSeq;
      const aSeq = a.ws.lastSeq;
      const pic = 'https://pics.example.com/new.png';
      expect((await a.client.request('PUT', API.profile, { ...base, name: 'Renamed', profilePic: pic })).status).toBe(
        200,
      );
      await b.ws.waitFor(() => b.ws.updates().some((u) => u.seq > bSeq && u.update.kind === 'peer'));
      const peer = b.ws.updates().find((u) => u.seq > bSeq && u.update.kind === 'peer');
      // Only the public profile: no e-mail, phone or age.
      expect(peer?.update).toEqual({
        kind: 'peer',
        user: { id: a.user.id, username: a.user.username, name: 'Renamed', profilePic: pic, verified: false },
      });
      expect((await b.ws.request('chats')).chats[0]?.peer).toMatchObject({ name: 'Renamed', profilePic: pic });
      expect((await b.ws.request('history', { peerId: a.user.id })).peer).toMatchObject({ name: 'Renamed' });

      await settle(stranger.ws);
      expect(stranger.ws.updates()).toEqual([]);
      await settle(a.ws);
      expect(a.ws.updates().filter((u) => u.seq > aSeq && u.update.kind === 'peer')).toEqual([]);

      // b was away: the change is in the backlog they resume from.
      const resumeFrom = b.ws.lastSeq;
      await b.ws.close();
      expect((await a.client.request('PUT', API.profile, { ...base, name: 'Renamed Again' })).status).toBe(200);
      const back = await WsTestClient.connect(t, b.client.cookie, resumeFrom);
      expect(back.welcome?.resumed).toBe(true);
      await back.waitFor(() => back.updates().some((u) => u.update.kind === 'peer'));
      expect(back.updates().find((u) => u.update.kind === 'peer')?.update).toMatchObject({
        user: { id: a.user.id, name: 'Renamed Again', profilePic: null },
      });
      await back.close();
    });
  });

  describe('read receipts', () => {
    it("off for the reader: the sender never sees read, the reader's unread count still clears", async () => {
      const a = await person();
      const b = await person();
      await setPrivacy(b, { readReceipts: false });
      const bTab = await WsTestClient.connect(t, b.client.cookie);
      expect(bTab.welcome?.privacy.readReceipts).toBe(false);

      const m1 = await a.ws.sendMessage(b.user.id, 'first');
      const m2 = await a.ws.sendMessage(b.user.id, 'second');
      await b.ws.waitFor(() => messageUpdates(b.ws).length >= 2);
      expect((await b.ws.request('chats')).chats[0]?.unreadCount).toBe(2);
      // The client reports delivery of the first one, then opens the chat.
      await b.ws.request('delivered', { chatId: m1.chatId, msgIds: [m1.id] });
      const bSeq = b.ws.lastSeq;
      await b.ws.request('read', { peerId: a.user.id });
      await b.ws.waitFor(() =>
        b.ws.updates().some((u) => u.seq > bSeq && u.update.kind === 'chat' && u.update.chat.unreadCount === 0),
      );
      expect((await b.ws.request('chats')).chats[0]?.unreadCount).toBe(0);
      expect((await bTab.request('chats')).chats[0]?.unreadCount).toBe(0);

      // The second message went from sent to delivered; neither ever shows read to a.
      await a.ws.waitFor(() => messageUpdates(a.ws).some((m) => m.id === m2.id && m.status === 'delivered'));
      await settle(a.ws);
      const seen = messageUpdates(a.ws);
      expect(seen.some((m) => m.status === 'read' || m.readAt !== null)).toBe(false);
      const history = (await a.ws.request('history', { peerId: b.user.id })).messages;
      expect(history.map((m) => [m.id, m.status, m.readAt])).toEqual([
        [m1.id, 'delivered', null],
        [m2.id, 'delivered', null],
      ]);
      // Not hidden but never recorded: the stored rows say delivered too.
      const rows = await t.server.ctx.store.db
        .selectFrom('messages')
        .select(['status', 'read_at'])
        .where('chat_id', '=', m1.chatId)
        .execute();
      expect(rows.map((r) => [r.status, r.read_at])).toEqual([
        ['delivered', null],
        ['delivered', null],
      ]);
      // A fresh load of a's state says the same.
      const fresh = await WsTestClient.connect(t, a.client.cookie);
      expect((await fresh.request('history', { peerId: b.user.id })).messages.map((m) => m.status)).toEqual([
        'delivered',
        'delivered',
      ]);
      await fresh.close();

      // A message arriving later, read again: still only delivered.
      const m3 = await a.ws.sendMessage(b.user.id, 'third');
      await b.ws.request('read', { peerId: a.user.id });
      await a.ws.waitFor(() => messageUpdates(a.ws).some((m) => m.id === m3.id && m.status === 'delivered'));
      expect(messageUpdates(a.ws).some((m) => m.status === 'read')).toBe(false);
      await bTab.close();
    });

    it('off for the sender: messages the peer read show delivered, live, in history, fresh and on resume', async () => {
      const a = await person();
      const b = await person();
      await setPrivacy(a, { readReceipts: false });
      await a.ws.waitFor(() => a.ws.updates().some((u) => u.update.kind === 'privacy'));
      const aTab = await WsTestClient.connect(t, a.client.cookie);
      expect(aTab.welcome?.privacy).toEqual({ readReceipts: false, lastSeen: true, requireRequest: false });

      const m = await a.ws.sendMessage(b.user.id, 'hello');
      const seq = a.ws.lastSeq;
      await b.ws.waitFor(() => messageUpdates(b.ws).some((x) => x.id === m.id));
      await b.ws.request('read', { peerId: a.user.id });
      // The truth is stored (b reads with receipts on) ...
      const bView = (await b.ws.request('history', { peerId: a.user.id })).messages[0];
      expect(bView).toMatchObject({ id: m.id, status: 'read' });
      expect(bView?.readAt).toEqual(expect.any(Number));

      // ... but no socket of a ever shows it.
      for (const ws of [a.ws, aTab]) {
        await ws.waitFor(() => messageUpdates(ws, seq).some((x) => x.id === m.id));
        const live = messageUpdates(ws, seq);
        expect(live.map((x) => [x.status, x.readAt])).toEqual([['delivered', null]]);
        expect(live[0]?.deliveredAt).toEqual(expect.any(Number));
      }
      expect((await a.ws.request('history', { peerId: b.user.id })).messages[0]).toMatchObject({
        id: m.id,
        status: 'delivered',
        readAt: null,
      });
      const fresh = await WsTestClient.connect(t, a.client.cookie);
      expect((await fresh.request('history', { peerId: b.user.id })).messages[0]).toMatchObject({
        status: 'delivered',
        readAt: null,
      });
      await fresh.close();
      const resumed = await WsTestClient.connect(t, a.client.cookie, seq);
      expect(resumed.welcome?.resumed).toBe(true);
      await resumed.waitFor(() => messageUpdates(resumed).length > 0);
      await settle(resumed);
      expect(messageUpdates(resumed).map((x) => [x.id, x.status, x.readAt])).toEqual([[m.id, 'delivered', null]]);
      await resumed.close();
      // Even from the start of the log.
      const replay = await WsTestClient.connect(t, a.client.cookie, 0);
      expect(replay.welcome?.resumed).toBe(true);
      await settle(replay);
      expect(messageUpdates(replay).some((x) => x.status === 'read' || x.readAt !== null)).toBe(false);
      await replay.close();

      // Turned back on, a sees the stored truth again, on the socket that was told.
      await setPrivacy(a, { readReceipts: true });
      await a.ws.waitFor(() =>
        a.ws.updates().some((u) => u.update.kind === 'privacy' && u.update.privacy.readReceipts),
      );
      expect((await a.ws.request('history', { peerId: b.user.id })).messages[0]).toMatchObject({ status: 'read' });
      await aTab.waitFor(() =>
        aTab.updates().some((u) => u.update.kind === 'privacy' && u.update.privacy.readReceipts),
      );
      expect((await aTab.request('history', { peerId: b.user.id })).messages[0]).toMatchObject({ status: 'read' });
      await aTab.close();
    });
  });

  describe('last seen', () => {
    it("hidden by the user: others' user and watch answers and pushed presence carry lastSeen null", async () => {
      const a = await person();
      const b = await person();
      expect((await a.ws.request('user', { userId: b.user.id })).presence).toMatchObject({
        online: true,
        lastSeen: expect.any(Number),
      });
      const watched = await a.ws.request('watch', { userIds: [b.user.id] });
      expect(watched.presence[0]?.lastSeen).toEqual(expect.any(Number));

      // Turning it off pushes b's presence anew to whoever watches b.
      let from = a.ws.frames.length;
      await setPrivacy(b, { lastSeen: false });
      await a.ws.waitFor(() => presenceFrames(a.ws, from).length > 0);
      expect(presenceFrames(a.ws, from)).toEqual([{ userId: b.user.id, online: true, lastSeen: null }]);
      expect((await a.ws.request('user', { userId: b.user.id })).presence).toEqual({
        userId: b.user.id,
        online: true,
        lastSeen: null,
      });
      expect((await a.ws.request('watch', { userIds: [b.user.id] })).presence).toEqual([
        { userId: b.user.id, online: true, lastSeen: null },
      ]);

      // Going offline: the pushed frame carries no time either.
      from = a.ws.frames.length;
      await b.ws.close();
      await a.ws.waitFor(() => presenceFrames(a.ws, from).some((p) => !p.online));
      expect(presenceFrames(a.ws, from)).toEqual([{ userId: b.user.id, online: false, lastSeen: null }]);
      const c = await person();
      expect((await c.ws.request('user', { userId: b.user.id })).presence).toEqual({
        userId: b.user.id,
        online: false,
        lastSeen: null,
      });
      // The time is still recorded, only not shown.
      const row = await t.server.ctx.store.db
        .selectFrom('users')
        .select('last_seen')
        .where('id', '=', b.user.id)
        .executeTakeFirst();
      expect(Number(row?.last_seen)).toBeGreaterThan(0);

      // Turning it back on shows it to watchers at once.
      from = a.ws.frames.length;
      await setPrivacy(b, { lastSeen: true });
      await a.ws.waitFor(() => presenceFrames(a.ws, from).length > 0);
      expect(presenceFrames(a.ws, from)).toEqual([
        { userId: b.user.id, online: false, lastSeen: Number(row?.last_seen) },
      ]);
      // Coming back online is pushed with the time again.
      from = a.ws.frames.length;
      const bBack = await WsTestClient.connect(t, b.client.cookie);
      await a.ws.waitFor(() => presenceFrames(a.ws, from).some((p) => p.online));
      expect(presenceFrames(a.ws, from)[0]).toMatchObject({
        userId: b.user.id,
        online: true,
        lastSeen: expect.any(Number),
      });
      await bBack.close();
    });

    it('hidden by the viewer: the viewer sees no one’s last seen, pushed or asked for', async () => {
      const a = await person();
      const c = await person();
      await a.ws.request('watch', { userIds: [c.user.id] });
      await setPrivacy(a, { lastSeen: false });
      await a.ws.waitFor(() => a.ws.updates().some((u) => u.update.kind === 'privacy' && !u.update.privacy.lastSeen));
      expect((await a.ws.request('user', { userId: c.user.id })).presence).toEqual({
        userId: c.user.id,
        online: true,
        lastSeen: null,
      });
      expect((await a.ws.request('watch', { userIds: [c.user.id] })).presence[0]?.lastSeen).toBeNull();

      const d = await person();
      await d.ws.request('watch', { userIds: [c.user.id] });
      const aFrom = a.ws.frames.length;
      const dFrom = d.ws.frames.length;
      await c.ws.close();
      await a.ws.waitFor(() => presenceFrames(a.ws, aFrom).some((p) => !p.online));
      await d.ws.waitFor(() => presenceFrames(d.ws, dFrom).some((p) => !p.online));
      // c shows their time to everyone else ...
      expect(presenceFrames(d.ws, dFrom)[0]).toMatchObject({ online: false, lastSeen: expect.any(Number) });
      expect((await d.ws.request('user', { userId: c.user.id })).presence.lastSeen).toEqual(expect.any(Number));
      // ... but not to a, on this socket or a new one.
      expect(presenceFrames(a.ws, aFrom)).toEqual([{ userId: c.user.id, online: false, lastSeen: null }]);
      const aTab = await WsTestClient.connect(t, a.client.cookie);
      expect(aTab.welcome?.privacy.lastSeen).toBe(false);
      expect((await aTab.request('user', { userId: c.user.id })).presence.lastSeen).toBeNull();
      await aTab.close();
    });
  });
});

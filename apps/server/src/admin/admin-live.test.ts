/**
 * The administrator's changes taking effect live, against a real server, the client
 * bypassed: raw HTTP with the session cookie and raw WebSocket frames. Blocking closes
 * the user's sockets and ends their sessions; a verified badge, broadcasts and the help
 * link reach every open socket; nobody but the administrator sees other people's
 * e-mails. Runs on SQLite, and on PostgreSQL too when TEST_DATABASE_URL is set.
 */

import { API, CLOSE, type ResultData } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { TEST_KDF } from '../test/accounts.ts';
import {
  clockPast,
  engines,
  globals,
  PASSWORD,
  settle,
  updatesOf,
  useAdminFixture,
  waitGlobal,
} from '../test/admin-support.ts';
import { expectError, signInWith } from '../test/harness.ts';
import { countUserSessions } from '../test/store-queries.ts';
import { WsTestClient } from '../test/ws-client.ts';

const EMAIL_RE = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;

describe.each(engines)('on $name', ({ url }) => {
  const { t, raw, emails, connect, person, patchUser, auditOf, admin, watcher } = useAdminFixture(url, 'admlive');
  type Person = typeof admin;

  describe('blocking', () => {
    it('closes every socket with 4003, ends the sessions, refuses sign-in and messages; unblocking lets them back', async () => {
      const victim = await person();
      const second = t.client();
      expect((await signInWith(second, victim.input.username, PASSWORD)).status).toBe(200);
      const ws1 = victim.ws;
      const ws2 = await connect(second.cookie);
      const peer = await person();
      await peer.ws.sendMessage(victim.user.id, 'hello before the block');
      const { store } = t.server.ctx;
      expect(await countUserSessions(store, victim.user.id)).toBe(2);

      const blocked = await patchUser(victim.user.id, { blocked: true });
      expect(blocked).toMatchObject({ id: victim.user.id, email: victim.input.email, blocked: true, isSelf: false });
      await Promise.all([ws1.waitClosed(), ws2.waitClosed()]);
      expect(ws1.closed?.code).toBe(CLOSE.blocked);
      expect(ws2.closed?.code).toBe(CLOSE.blocked);
      expect(await countUserSessions(store, victim.user.id)).toBe(0);

      for (const c of [victim.client, second]) {
        const cookie = c.cookie;
        expect((await c.get(API.session)).body).toEqual({ user: null });
        const privacy = { readReceipts: true, lastSeen: true, requireRequest: false };
        expectError(await c.request('PUT', API.privacy, privacy), 401, 'unauthenticated');
        // A new socket with the old cookie is turned away.
        const late = await WsTestClient.open(t, cookie);
        await late.waitClosed();
        expect(late.closed?.code).toBe(CLOSE.unauthenticated);
      }
      for (const login of [victim.input.email, victim.input.username]) {
        const again = t.client();
        expectError(
          await signInWith(again, login, PASSWORD),
          403,
          'blocked',
          'This account has been blocked by the administrator',
        );
        expect(again.cookie).toBeNull();
      }
      const refused = await peer.ws.requestError('send', await peer.ws.sealedSend(victim.user.id, 'there?'));
      expect(refused.code).toBe('recipient_unavailable');
      expect((await peer.ws.request('users', { query: victim.input.username })).users).toEqual([]);
      const listed = await admin.client.get(`${API.adminUsers}?query=${victim.input.username}`);
      expect(listed.body.users).toEqual([expect.objectContaining({ id: victim.user.id, blocked: true })]);
      expect(await countUserSessions(store, victim.user.id)).toBe(0);

      const [blockEntry] = await auditOf(victim.user.id);
      await clockPast(blockEntry?.at ?? 0);
      expect(await patchUser(victim.user.id, { blocked: false })).toMatchObject({ blocked: false });
      const back = t.client();
      expect((await signInWith(back, victim.input.email, PASSWORD)).status).toBe(200);
      const ws3 = await connect(back.cookie);
      expect(ws3.welcome?.userId).toBe(victim.user.id);
      const back1 = await peer.ws.sendMessage(victim.user.id, 'welcome back');
      await ws3.waitFor(() => updatesOf(ws3, 'message').some((u) => u.message.id === back1.id));
      expect(await ws3.textOf(back1)).toBe('welcome back');
      // The sessions the block ended stay ended.
      expect((await victim.client.get(API.session)).body).toEqual({ user: null });

      const entry = {
        id: expect.any(String),
        at: expect.any(Number),
        actorId: admin.user.id,
        actorUsername: admin.user.username,
        targetId: victim.user.id,
        targetLabel: `@${victim.input.username}`,
      };
      expect(await auditOf(victim.user.id)).toEqual([
        { ...entry, action: 'user.unblock', detail: null },
        { ...entry, action: 'user.block', detail: '2 sessions ended' },
      ]);
      await ws3.close();
    });
  });

  describe('the verified badge', () => {
    it('reaches every socket at once, and the logs of those who chat with the user', async () => {
      const b = await person();
      const friend = await person();
      const stranger = await person();
      await friend.ws.sendMessage(b.user.id, 'hi b');
      await settle(friend.ws);
      await settle(stranger.ws);
      const friendSeq = friend.ws.lastSeq;
      const strangerSeq = stranger.ws.lastSeq;
      const bSeq = b.ws.lastSeq;

      expect(await patchUser(b.user.id, { verified: true })).toMatchObject({ id: b.user.id, verified: true });
      const expected = { id: b.user.id, username: b.input.username, name: b.input.name, profilePic: null };
      for (const p of [admin, watcher, b, friend, stranger]) {
        const seen = await waitGlobal(p.ws, 'peer', (e) => e.user.id === b.user.id);
        expect(seen).toEqual([{ kind: 'peer', user: { ...expected, verified: true } }]);
      }
      // Logged for the friend only (so it survives a reconnect), not for strangers or b.
      await settle(friend.ws);
      await settle(stranger.ws);
      await settle(b.ws);
      expect(updatesOf(friend.ws, 'peer', friendSeq)).toEqual([
        { kind: 'peer', user: { ...expected, verified: true } },
      ]);
      expect(updatesOf(stranger.ws, 'peer', strangerSeq)).toEqual([]);
      expect(updatesOf(b.ws, 'peer', bSeq)).toEqual([]);
      await friend.ws.close();
      const resumed = await connect(friend.client.cookie, friendSeq);
      expect(resumed.welcome?.resumed).toBe(true);
      await resumed.waitFor(() => updatesOf(resumed, 'peer', friendSeq).length > 0);
      expect(updatesOf(resumed, 'peer', friendSeq)).toEqual([{ kind: 'peer', user: { ...expected, verified: true } }]);

      // What everyone reads now.
      const found = await stranger.ws.request('users', { query: b.input.username });
      expect(found.users).toEqual([{ ...expected, verified: true, online: true }]);
      expect((await stranger.ws.request('user', { userId: b.user.id })).user).toEqual({ ...expected, verified: true });
      const chats = (await resumed.request('chats')).chats;
      expect(chats.find((c) => c.peerId === b.user.id)?.peer).toEqual({ ...expected, verified: true });
      expect((await resumed.request('history', { peerId: b.user.id })).peer).toEqual({ ...expected, verified: true });
      const listed = await admin.client.get(`${API.adminUsers}?query=${b.input.username}`);
      expect(listed.body).toEqual({
        users: [expect.objectContaining({ id: b.user.id, email: b.input.email, verified: true, blocked: false })],
        next: null,
        total: 1,
      });

      // Verifying again changes nothing: no audit entry, no frame.
      const entries = await auditOf(b.user.id);
      expect(entries.map((e) => e.action)).toEqual(['user.verify']);
      expect(await patchUser(b.user.id, { verified: true })).toMatchObject({ verified: true });
      expect(await auditOf(b.user.id)).toEqual(entries);
      await settle(stranger.ws);
      await settle(resumed);
      expect(globals(stranger.ws, 'peer').filter((e) => e.user.id === b.user.id)).toHaveLength(1);
      expect(updatesOf(resumed, 'peer', friendSeq)).toHaveLength(1);

      // Removing it travels the same ways.
      await clockPast(entries[0]?.at ?? 0);
      expect(await patchUser(b.user.id, { verified: false })).toMatchObject({ verified: false });
      for (const p of [watcher, stranger]) {
        await waitGlobal(p.ws, 'peer', (e) => e.user.id === b.user.id && !e.user.verified);
      }
      await resumed.waitFor(() => updatesOf(resumed, 'peer', friendSeq).some((u) => !u.user.verified));
      expect((await stranger.ws.request('user', { userId: b.user.id })).user.verified).toBe(false);
      expect((await auditOf(b.user.id)).map((e) => e.action)).toEqual(['user.unverify', 'user.verify']);
      await resumed.close();
    });
  });

  describe('the help link', () => {
    it('reaches every socket and GET /api/settings; setting the same link again is a no-op', async () => {
      const u = await person();
      const everyone = [admin, watcher, u];
      const link = 'https://help.example.com/faq';
      const before = await auditOf(null, 'settings.helpLink');
      const res = await admin.client.request('PUT', API.adminSettings, { helpLink: link });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        helpLink: link,
        uploadUrl: t.config.uploadUrl,
        kdf: TEST_KDF,
        e2eeSince: null,
        attachmentMaxBytes: t.config.attachmentMaxBytes,
      });
      for (const p of everyone) {
        expect(await waitGlobal(p.ws, 'settings', (e) => e.helpLink === link)).toEqual([
          { kind: 'settings', helpLink: link },
        ]);
      }
      expect((await t.client().get(API.publicSettings)).body).toEqual({
        helpLink: link,
        uploadUrl: t.config.uploadUrl,
        kdf: TEST_KDF,
        // A deployment that never had a message in the clear.
        e2eeSince: null,
        attachmentMaxBytes: t.config.attachmentMaxBytes,
      });
      const logged = await auditOf(null, 'settings.helpLink');
      expect(logged).toHaveLength(before.length + 1);
      expect(logged[0]).toMatchObject({ actorId: admin.user.id, actorUsername: admin.user.username, detail: link });

      const counts = everyone.map((p) => globals(p.ws, 'settings').length);
      const same = await admin.client.request('PUT', API.adminSettings, { helpLink: ` ${link} ` });
      expect(same.body.helpLink).toBe(link);
      for (const p of everyone) await settle(p.ws);
      expect(everyone.map((p) => globals(p.ws, 'settings').length)).toEqual(counts);
      expect(await auditOf(null, 'settings.helpLink')).toEqual(logged);

      await clockPast(logged[0]?.at ?? 0);
      expect((await admin.client.request('PUT', API.adminSettings, { helpLink: '' })).status).toBe(200);
      for (const p of everyone) await waitGlobal(p.ws, 'settings', (e) => e.helpLink === null);
      expect((await u.client.get(API.publicSettings)).body.helpLink).toBeNull();
      expect((await auditOf(null, 'settings.helpLink'))[0]?.detail).toBe('cleared');
    });
  });

  /** The text of every answer `who` can get over HTTP and the socket about the others. */
  async function everythingReadBy(who: Person, others: Person[], queries: string[]): Promise<string[]> {
    const traffic: string[] = [];
    for (const p of [API.session, API.publicSettings, API.privacy]) {
      traffic.push(JSON.stringify((await who.client.get(p)).body));
    }
    const ask = async (kind: Parameters<WsTestClient['request']>[0], body: Record<string, unknown> = {}) => {
      traffic.push(JSON.stringify(await who.ws.request(kind, body)));
    };
    let after: string | null = null;
    do {
      const page: ResultData['users'] = await who.ws.request('users', after ? { query: '', after } : { query: '' });
      traffic.push(JSON.stringify(page));
      after = page.next;
    } while (after);
    for (const q of ['example', '@', 'u_', ...queries]) await ask('users', { query: q });
    for (const p of others) {
      await ask('user', { userId: p.user.id });
      await ask('history', { peerId: p.user.id });
    }
    await ask('chats');
    await ask('notifications');
    await ask('watch', { userIds: others.slice(0, 3).map((p) => p.user.id) });
    return traffic;
  }

  describe('privacy', () => {
    it('no regular user ever sees another user’s e-mail; the admin list shows them', async () => {
      const alice = await person();
      const bob = await person();
      const carol = await person();
      await alice.ws.sendMessage(bob.user.id, 'hi bob');
      await carol.ws.sendMessage(alice.user.id, 'hi alice');
      // Admin actions while alice listens.
      await patchUser(bob.user.id, { verified: true });
      await patchUser(carol.user.id, { blocked: true });
      await patchUser(carol.user.id, { blocked: false });
      const sent = await admin.client.post(API.adminBroadcasts, { message: 'Hello from the admin' });
      await admin.client.request('PUT', `${API.adminBroadcasts}/${sent.body.notification.id}`, { message: 'Edited' });
      await admin.client.request('DELETE', `${API.adminBroadcasts}/${sent.body.notification.id}`);
      await admin.client.request('PUT', API.adminSettings, { helpLink: 'https://help.example.com/privacy' });
      for (const p of [alice, watcher]) {
        await waitGlobal(p.ws, 'notificationRemoved', (e) => e.id === sent.body.notification.id);
        await waitGlobal(p.ws, 'settings', (e) => e.helpLink === 'https://help.example.com/privacy');
      }

      // Everything alice reads over HTTP and the socket.
      const traffic = await everythingReadBy(
        alice,
        [bob, carol, admin, watcher],
        [bob.input.username, bob.input.email],
      );

      /** E-mail addresses in `texts` other than `own`, and known ones however they appear. */
      const leaks = (texts: string[], own: string) => {
        const all = texts.join('\n');
        const found = (all.match(EMAIL_RE) ?? []).filter((e) => e.toLowerCase() !== own.toLowerCase());
        const known = emails.filter((e) => e !== own && all.toLowerCase().includes(e.toLowerCase()));
        return [...new Set([...found, ...known])];
      };
      // The scan finds what is there: the session shows alice her own address.
      expect(traffic[0]).toContain(alice.input.email);
      expect(leaks([...traffic, ...(raw.get(alice.ws) ?? [])], alice.input.email)).toEqual([]);
      // The watcher heard every global frame this file caused, and their own welcome.
      expect(raw.get(watcher.ws)?.some((f) => f.includes('"t":"global"'))).toBe(true);
      expect(leaks(raw.get(watcher.ws) ?? [], watcher.input.email)).toEqual([]);
      // And so did every other socket opened in this file.
      for (const [ws, texts] of raw) {
        const owner = ws.welcome?.userId ?? '';
        if (owner === admin.user.id) continue;
        const own = (await t.server.ctx.store.userById(owner))?.email ?? '';
        expect(leaks(texts, own), `socket of ${owner}`).toEqual([]);
      }

      // Only the administrator's list has them.
      const listed = await admin.client.get(`${API.adminUsers}?query=`);
      expect(listed.status).toBe(200);
      const byId = new Map(listed.body.users.map((u: { id: string; email: string }) => [u.id, u.email]));
      for (const p of [alice, bob, carol, watcher, admin]) expect(byId.get(p.user.id)).toBe(p.input.email);
      expect(listed.body.total).toBe(await t.server.ctx.store.countUsers());
      const bySearch = await admin.client.get(`${API.adminUsers}?query=${encodeURIComponent(bob.input.email)}`);
      expect(bySearch.body.users.map((u: { id: string }) => u.id)).toEqual([bob.user.id]);
    });
  });
});

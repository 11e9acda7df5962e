/**
 * The admin API's refusals against a real server, the client bypassed: raw HTTP with the
 * session cookie and raw WebSocket frames. Every admin route refuses signed-out callers,
 * regular users, the ADMIN_EMAIL account before its e-mail is verified, and cross-origin
 * writes, and nothing changes; the administrator cannot lock themselves out. Runs on
 * SQLite, and on PostgreSQL too when TEST_DATABASE_URL is set.
 */
import { ADMIN_MSG, API, type AuditEntry, type Broadcast } from '@app/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, engines, FORBIDDEN, LIMITS, refused, snapshot } from '../test/admin-support.ts';
import { expectError, signUp, startEngineServer, type TestServer, verifyEmail } from '../test/harness.ts';
import { WsTestClient } from '../test/ws-client.ts';

interface Route {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
}

/** Every admin route, aimed at `targetId` and the broadcast `broadcastId`. */
function adminRoutes(targetId: string, broadcastId: string): Route[] {
  return [
    { name: 'stats', method: 'GET', path: API.adminStats },
    { name: 'users list', method: 'GET', path: `${API.adminUsers}?query=` },
    { name: 'verify a user', method: 'PATCH', path: `${API.adminUsers}/${targetId}`, body: { verified: true } },
    { name: 'block a user', method: 'PATCH', path: `${API.adminUsers}/${targetId}`, body: { blocked: true } },
    { name: 'list notifications', method: 'GET', path: API.adminBroadcasts },
    { name: 'send a notification', method: 'POST', path: API.adminBroadcasts, body: { message: 'Free crypto!' } },
    {
      name: 'edit a notification',
      method: 'PUT',
      path: `${API.adminBroadcasts}/${broadcastId}`,
      body: { message: 'Hijacked' },
    },
    { name: 'delete a notification', method: 'DELETE', path: `${API.adminBroadcasts}/${broadcastId}` },
    { name: 'set the help link', method: 'PUT', path: API.adminSettings, body: { helpLink: 'https://evil.example/' } },
    { name: 'audit log', method: 'GET', path: API.adminAudit },
  ];
}

describe.each(engines)('on $name', ({ url }) => {
  let t: TestServer;
  let admin: Awaited<ReturnType<typeof signUp>>;
  /** A broadcast the refused calls try to edit and delete. */
  let fixture: Broadcast;
  beforeAll(async () => {
    t = await startEngineServer(url, 'admref', { config: { rateLimits: LIMITS } });
    // The ADMIN_EMAIL account, its e-mail not verified yet (the first test verifies it).
    admin = await signUp(t, { email: ADMIN_EMAIL });
    const actor = { id: admin.user.id, username: admin.user.username };
    fixture = await t.server.ctx.admin.createBroadcast(
      actor,
      { message: 'Fixture', videoUrl: null, imageUrl: null },
      Date.now(),
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The administrator's client (verifying the ADMIN_EMAIL address if the first test did not run). */
  async function adminClient() {
    await t.server.ctx.store.setEmailVerified(admin.user.id, ADMIN_EMAIL);
    return admin.client;
  }

  function globalFrames(ws: WsTestClient) {
    return ws.frames.filter((f) => f.t === 'global');
  }

  describe('refusals', () => {
    it('the ADMIN_EMAIL account is refused on every route until its e-mail is verified', async () => {
      const target = await signUp(t);
      const before = await snapshot(t, [target.user.id, admin.user.id]);
      expect((await admin.client.get(API.session)).body.user).toMatchObject({
        email: ADMIN_EMAIL,
        emailVerified: false,
        isAdmin: false,
      });
      for (const r of adminRoutes(target.user.id, fixture.id)) {
        const res = await admin.client.request(r.method, r.path, r.body);
        refused(res, 403, 'forbidden', `unverified admin: ${r.name}`, FORBIDDEN);
      }
      // Not even its own badge.
      const self = await admin.client.request('PATCH', `${API.adminUsers}/${admin.user.id}`, { verified: true });
      refused(self, 403, 'forbidden', 'unverified admin: verify self');
      expect(await snapshot(t, [target.user.id, admin.user.id])).toEqual(before);

      // Once the address is verified (through the mailed link), the same session is the admin.
      await verifyEmail(t, ADMIN_EMAIL);
      expect((await admin.client.get(API.session)).body.user).toMatchObject({ emailVerified: true, isAdmin: true });
      const stats = await admin.client.get(API.adminStats);
      expect(stats.status).toBe(200);
      expect(stats.body).toEqual({ totalUsers: await t.server.ctx.store.countUsers() });
    });

    it('signed out → 401, regular users → 403 forbidden, cross-origin writes → 403 bad_origin; nothing changes', async () => {
      const client = await adminClient();
      const target = await signUp(t);
      const regular = await signUp(t);
      const verifiedRegular = await signUp(t);
      await t.server.ctx.store.setEmailVerified(verifiedRegular.user.id, verifiedRegular.input.email);
      const targetWs = await WsTestClient.connect(t, target.client.cookie);
      const ids = [target.user.id, regular.user.id, verifiedRegular.user.id, admin.user.id];
      const before = await snapshot(t, ids);
      expect(before.broadcasts.map((b) => b.id)).toContain(fixture.id);

      const anon = t.client();
      const forged = t.client();
      forged.cookie = `${admin.client.cookie}x`;
      for (const r of adminRoutes(target.user.id, fixture.id)) {
        refused(await anon.request(r.method, r.path, r.body), 401, 'unauthenticated', `signed out: ${r.name}`);
        refused(await forged.request(r.method, r.path, r.body), 401, 'unauthenticated', `forged cookie: ${r.name}`);
        for (const [who, p] of [
          ['regular', regular],
          ['verified regular', verifiedRegular],
        ] as const) {
          const res = await p.client.request(r.method, r.path, r.body);
          refused(res, 403, 'forbidden', `${who}: ${r.name}`, FORBIDDEN);
        }
      }
      // A regular user cannot give themselves the badge or touch their own flags either.
      for (const body of [{ verified: true }, { blocked: false }, { verified: true, blocked: false }]) {
        const res = await regular.client.request('PATCH', `${API.adminUsers}/${regular.user.id}`, body);
        refused(res, 403, 'forbidden', `regular on self: ${JSON.stringify(body)}`);
      }
      // The administrator's own cookie, sent from another site: refused before anything runs.
      for (const r of adminRoutes(target.user.id, fixture.id).filter((x) => x.method !== 'GET')) {
        for (const origin of ['https://evil.example', 'null', 'http://localhost.evil.example']) {
          const res = await client.request(r.method, r.path, r.body, { headers: { origin } });
          refused(res, 403, 'bad_origin', `${origin}: ${r.name}`, 'Cross-origin requests are not allowed');
        }
      }

      expect(await snapshot(t, ids)).toEqual(before);
      expect((await regular.client.get(API.session)).body.user).toMatchObject({ isAdmin: false, verified: false });
      // The target's socket stayed open and heard nothing.
      await targetWs.request('chats');
      expect(targetWs.closed).toBeNull();
      expect(globalFrames(targetWs)).toEqual([]);

      // The same write from our own origin goes through: the refusals were for the origin.
      const own = await client.request(
        'PATCH',
        `${API.adminUsers}/${target.user.id}`,
        { verified: true },
        {
          headers: { origin: t.url },
        },
      );
      expect(own.status, JSON.stringify(own.body)).toBe(200);
      expect(own.body.user).toMatchObject({ id: target.user.id, verified: true });
      await targetWs.close();
    });

    it('a regular user’s socket: made-up admin frames are invalid_frame and the socket stays usable', async () => {
      await adminClient();
      const user = await signUp(t);
      const target = await signUp(t);
      const ws = await WsTestClient.connect(t, user.client.cookie);
      const listener = await WsTestClient.connect(t, target.client.cookie);
      const ids = [user.user.id, target.user.id];
      const before = await snapshot(t, ids);
      const me = { id: user.user.id, username: user.input.username, name: 'x', profilePic: null, verified: true };
      const frames: [string, Record<string, unknown>][] = [
        ['verify', { userId: target.user.id }],
        ['block', { userId: target.user.id }],
        ['unblock', { userId: target.user.id }],
        ['setFlags', { userId: user.user.id, verified: true }],
        ['broadcast', { message: 'Free crypto!' }],
        ['notification', { message: 'Free crypto!' }],
        ['settings', { helpLink: 'https://evil.example/' }],
        ['global', { event: { kind: 'settings', helpLink: 'https://evil.example/' } }],
        ['global', { event: { kind: 'peer', user: me } }],
        ['update', { seq: 1, update: { kind: 'peer', user: me } }],
        ['notifications', { admin: true }],
        ['users', { query: '', withEmail: true }],
        ['user', { userId: target.user.id, includeEmail: true }],
      ];
      for (const [kind, body] of frames) {
        const err = await ws.requestError(kind, body);
        expect(err.code, `${kind} ${JSON.stringify(body)}`).toBe('invalid_frame');
      }
      // Still greeted and answering.
      ws.sendRaw({ t: 'ping' });
      await ws.waitFor(() => ws.frames.some((f) => f.t === 'pong'));
      expect((await ws.request('chats')).chats).toEqual([]);
      expect((await ws.request('user', { userId: target.user.id })).user).toEqual({
        id: target.user.id,
        username: target.input.username,
        name: target.input.name,
        profilePic: null,
        verified: false,
      });
      expect(ws.closed).toBeNull();

      expect(await snapshot(t, ids)).toEqual(before);
      await listener.request('chats');
      expect(globalFrames(listener)).toEqual([]);
      expect(globalFrames(ws)).toEqual([]);
      await ws.close();
      await listener.close();
    });
  });

  describe('self-protection', () => {
    it('the administrator cannot block or un-verify themselves, but may verify themselves', async () => {
      const client = await adminClient();
      const ws = await WsTestClient.connect(t, client.cookie);
      const self = `${API.adminUsers}/${admin.user.id}`;
      const before = await snapshot(t, [admin.user.id]);
      expect(before.users[0]).toMatchObject({ verified: false, blocked: false });

      expectError(await client.request('PATCH', self, { blocked: true }), 403, 'forbidden', ADMIN_MSG.selfBlock);
      expectError(await client.request('PATCH', self, { verified: false }), 403, 'forbidden', ADMIN_MSG.selfUnverify);
      // Nothing is applied half-way when the other flag is allowed.
      expectError(
        await client.request('PATCH', self, { verified: true, blocked: true }),
        403,
        'forbidden',
        ADMIN_MSG.selfBlock,
      );
      expectError(
        await client.request('PATCH', self, { verified: false, blocked: false }),
        403,
        'forbidden',
        ADMIN_MSG.selfUnverify,
      );
      expect(await snapshot(t, [admin.user.id])).toEqual(before);
      await ws.request('chats');
      expect(ws.closed).toBeNull();

      const verified = await client.request('PATCH', self, { verified: true });
      expect(verified.status).toBe(200);
      expect(verified.body.user).toMatchObject({
        id: admin.user.id,
        email: ADMIN_EMAIL,
        verified: true,
        blocked: false,
        isSelf: true,
      });
      const ownEntries = async () =>
        (await client.get(API.adminAudit)).body.entries.filter((e: AuditEntry) => e.targetId === admin.user.id);
      const [entry, ...older] = await ownEntries();
      expect(older).toEqual([]);
      expect(entry).toMatchObject({
        actorId: admin.user.id,
        actorUsername: admin.user.username,
        action: 'user.verify',
        targetId: admin.user.id,
        targetLabel: `@${admin.user.username}`,
      });
      // Still no way back, and unblocking oneself is a no-op that logs nothing.
      expectError(await client.request('PATCH', self, { verified: false }), 403, 'forbidden', ADMIN_MSG.selfUnverify);
      const unblock = await client.request('PATCH', self, { blocked: false });
      expect(unblock.status).toBe(200);
      expect(unblock.body.user).toMatchObject({ verified: true, blocked: false });
      expect(await ownEntries()).toEqual([entry]);
      // The session and socket lived through all of it.
      expect((await client.get(API.session)).body.user).toMatchObject({ isAdmin: true, verified: true });
      await ws.request('chats');
      expect(ws.closed).toBeNull();
      await ws.close();
    });
  });
});

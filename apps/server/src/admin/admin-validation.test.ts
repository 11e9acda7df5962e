/**
 * The admin API's input checks against a real server, the client bypassed: raw HTTP with
 * the session cookie. Broadcasts, the help link and user flags get their exact messages,
 * unknown or malformed ids are not found, and a refused call changes nothing. Runs on
 * SQLite, and on PostgreSQL too when TEST_DATABASE_URL is set.
 */
import { ADMIN_MSG, API, BROADCAST_MAX, type Broadcast, SOCIAL_MSG, URL_MAX } from '@app/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KDF } from '../test/accounts.ts';
import { ADMIN_EMAIL, clockPast, engines, LIMITS, refused, snapshot } from '../test/admin-support.ts';
import { expectError, signUp, startEngineServer, type TestServer } from '../test/harness.ts';
import { WsTestClient } from '../test/ws-client.ts';

describe.each(engines)('on $name', ({ url }) => {
  let t: TestServer;
  let admin: Awaited<ReturnType<typeof signUp>>;
  /** A broadcast the edits try to change. */
  let fixture: Broadcast;
  beforeAll(async () => {
    t = await startEngineServer(url, 'admval', { config: { rateLimits: LIMITS } });
    admin = await signUp(t, { email: ADMIN_EMAIL });
    expect(await t.server.ctx.store.setEmailVerified(admin.user.id, ADMIN_EMAIL)).toBe(true);
    const res = await admin.client.post(API.adminBroadcasts, { message: 'Fixture' });
    expect(res.status).toBe(201);
    fixture = res.body.notification;
  });
  afterAll(async () => {
    await t?.close();
  });

  function globalFrames(ws: WsTestClient) {
    return ws.frames.filter((f) => f.t === 'global');
  }

  describe('validation', () => {
    it('a broadcast needs a message; image and video URLs are checked; unknown fields and big bodies are refused', async () => {
      const { client } = admin;
      const watcher = await signUp(t);
      const ws = await WsTestClient.connect(t, watcher.client.cookie);
      const before = await snapshot(t, []);
      const base = { message: 'Hello everyone' };
      const cases: [Record<string, unknown>, string, string][] = [
        [{}, 'message', ADMIN_MSG.messageRequired],
        [{ message: '' }, 'message', ADMIN_MSG.messageRequired],
        [{ message: '   ' }, 'message', ADMIN_MSG.messageRequired],
        [{ message: ' \n\t  \n' }, 'message', ADMIN_MSG.messageRequired],
        [{ message: null }, 'message', ADMIN_MSG.messageRequired],
        [{ message: 42 }, 'message', ADMIN_MSG.messageRequired],
        [{ message: ['hi'] }, 'message', ADMIN_MSG.messageRequired],
        [{ message: 'x'.repeat(BROADCAST_MAX + 1) }, 'message', ADMIN_MSG.messageTooLong],
      ];
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
        42,
      ]) {
        cases.push([{ ...base, imageUrl: pic }, 'imageUrl', SOCIAL_MSG.imageUrl]);
      }
      for (const video of [
        'https://evil.example/watch?v=dQw4w9WgXcQ',
        'https://www.youtube.com.evil.example/watch?v=dQw4w9WgXcQ',
        'https://youtube.com@evil.example/watch?v=dQw4w9WgXcQ',
        'https://www.youtube.com/watch?v=short',
        'https://vimeo.com/not-a-number',
        'https://www.dailymotion.com/video/x7tgad0',
        'javascript:alert(1)',
        'data:text/html,<script>alert(1)</script>',
        'not a url',
        true,
      ]) {
        cases.push([{ ...base, videoUrl: video }, 'videoUrl', SOCIAL_MSG.videoUrl]);
      }
      cases.push([
        { ...base, imageUrl: `https://img.example.com/${'a'.repeat(URL_MAX)}` },
        'imageUrl',
        SOCIAL_MSG.urlTooLong,
      ]);
      cases.push([{ ...base, from: 'admin' }, '', 'Unknown field: from']);
      cases.push([{ ...base, timestamp: 0 }, '', 'Unknown field: timestamp']);
      cases.push([{ ...base, id: fixture.id }, '', 'Unknown field: id']);

      for (const [method, path] of [
        ['POST', API.adminBroadcasts],
        ['PUT', `${API.adminBroadcasts}/${fixture.id}`],
      ] as const) {
        for (const [body, field, message] of cases) {
          const res = await client.request(method, path, body);
          const label = `${method} ${JSON.stringify(body).slice(0, 80)}`;
          if (message) refused(res, 400, 'invalid_input', label, message);
          else refused(res, 400, 'invalid_input', label);
          expect(res.body.issues?.[0]?.path, label).toBe(field);
        }
        refused(await client.request(method, path, '{"message": '), 400, 'invalid_input', `${method} bad JSON`);
        refused(await client.request(method, path, []), 400, 'invalid_input', `${method} array`);
        const big = await client.request(method, path, { message: 'x'.repeat(17 * 1024) });
        refused(big, 413, 'payload_too_large', `${method} big body`);
      }

      // Nothing was sent, edited or logged; nobody was told.
      expect(await snapshot(t, [])).toEqual(before);
      await ws.request('chats');
      expect(globalFrames(ws)).toEqual([]);

      // The limits themselves pass: the longest message, trimmed; empty URLs mean none.
      const longest = 'y'.repeat(BROADCAST_MAX);
      const ok = await client.post(API.adminBroadcasts, { message: `  ${longest}  `, imageUrl: '', videoUrl: '' });
      expect(ok.status, JSON.stringify(ok.body).slice(0, 200)).toBe(201);
      expect(ok.body.notification).toMatchObject({ message: longest, imageUrl: null, videoUrl: null });
      const removed = await client.request('DELETE', `${API.adminBroadcasts}/${ok.body.notification.id}`);
      expect(removed.status).toBe(204);
      await ws.close();
    });

    it('the help link must be http(s); an empty one clears it', async () => {
      const { client } = admin;
      const auditBefore = (await t.server.ctx.admin.auditLog()).entries;
      for (const helpLink of [
        'javascript:alert(1)',
        'JavaScript:alert(1)',
        ' javascript:alert(1)',
        'ftp://x',
        'data:text/html,<script>alert(1)</script>',
        'file:///etc/passwd',
        '//evil.example/help',
        'https://',
        'not a url',
        `https://help.example.com/${'a'.repeat(URL_MAX)}`,
        42,
        false,
      ]) {
        const res = await client.request('PUT', API.adminSettings, { helpLink });
        refused(res, 400, 'invalid_input', JSON.stringify(helpLink).slice(0, 60), ADMIN_MSG.helpLink);
      }
      refused(await client.request('PUT', API.adminSettings, {}), 400, 'invalid_input', 'no field', ADMIN_MSG.helpLink);
      expectError(
        await client.request('PUT', API.adminSettings, { helpLink: 'https://help.example.com', uploadUrl: 'x' }),
        400,
        'invalid_input',
        'Unknown field: uploadUrl',
      );
      expect((await t.client().get(API.publicSettings)).body.helpLink).toBeNull();
      expect((await t.server.ctx.admin.auditLog()).entries).toEqual(auditBefore);

      // Each write in its own millisecond, so the log's order is theirs.
      const set = await client.request('PUT', API.adminSettings, { helpLink: '  https://help.example.com/faq  ' });
      expect(set.status).toBe(200);
      expect(set.body).toEqual({
        helpLink: 'https://help.example.com/faq',
        uploadUrl: t.config.uploadUrl,
        kdf: TEST_KDF,
        // A deployment that never had a message in the clear.
        e2eeSince: null,
        attachmentMaxBytes: t.config.attachmentMaxBytes,
      });
      expect((await t.client().get(API.publicSettings)).body.helpLink).toBe('https://help.example.com/faq');

      await clockPast(Date.now());
      const cleared = await client.request('PUT', API.adminSettings, { helpLink: '' });
      expect(cleared.status).toBe(200);
      expect(cleared.body.helpLink).toBeNull();
      expect((await t.client().get(API.publicSettings)).body).toEqual({
        helpLink: null,
        uploadUrl: t.config.uploadUrl,
        kdf: TEST_KDF,
        // A deployment that never had a message in the clear.
        e2eeSince: null,
        attachmentMaxBytes: t.config.attachmentMaxBytes,
      });

      await clockPast(Date.now());
      expect((await client.request('PUT', API.adminSettings, { helpLink: 'http://help.example.com/b' })).status).toBe(
        200,
      );
      await clockPast(Date.now());
      expect((await client.request('PUT', API.adminSettings, { helpLink: null })).status).toBe(200);
      expect((await t.client().get(API.publicSettings)).body.helpLink).toBeNull();
      const entries = (await t.server.ctx.admin.auditLog()).entries.filter((e) => e.action === 'settings.helpLink');
      expect(entries.map((e) => e.detail)).toEqual([
        'cleared',
        'http://help.example.com/b',
        'cleared',
        'https://help.example.com/faq',
      ]);
    });

    it('PATCH a user: empty or wrong flags → 400; unknown or malformed ids → 404; nothing changes', async () => {
      const { client } = admin;
      const target = await signUp(t);
      const ids = [target.user.id];
      const before = await snapshot(t, ids);
      const path = `${API.adminUsers}/${target.user.id}`;
      expectError(await client.request('PATCH', path, {}), 400, 'invalid_input', 'Nothing to change');
      for (const body of [
        { verified: 'yes' },
        { blocked: 1 },
        { verified: null },
        { blocked: 'false' },
        { verified: true, blocked: 'true' },
      ]) {
        refused(await client.request('PATCH', path, body), 400, 'invalid_input', JSON.stringify(body));
      }
      expectError(
        await client.request('PATCH', path, { verified: true, role: 'admin' }),
        400,
        'invalid_input',
        'Unknown field: role',
      );
      expectError(
        await client.request('PATCH', path, { email: 'mine@example.com' }),
        400,
        'invalid_input',
        'Unknown field: email',
      );
      refused(await client.request('PATCH', path, 'nope'), 400, 'invalid_input', 'bad JSON');

      expectError(
        await client.request('PATCH', `${API.adminUsers}/${'Z'.repeat(20)}`, { verified: true }),
        404,
        'not_found',
        'User not found',
      );
      for (const id of ['short', 'Z'.repeat(21), `${'Z'.repeat(19)}-`, `${'Z'.repeat(19)}%20`, '..%2Fstats', '%00']) {
        const res = await client.request('PATCH', `${API.adminUsers}/${id}`, { blocked: true });
        refused(res, 404, 'not_found', `id ${id}`);
      }
      refused(await client.request('PATCH', `${API.adminUsers}/`, { blocked: true }), 404, 'not_found', 'empty id');

      // Broadcast ids: unknown and malformed are not found.
      for (const id of ['doesNotExist', 'a-b', 'a.b', 'a%20b', 'x'.repeat(65)]) {
        const put = await client.request('PUT', `${API.adminBroadcasts}/${id}`, { message: 'x' });
        refused(put, 404, 'not_found', `PUT ${id}`);
        refused(await client.request('DELETE', `${API.adminBroadcasts}/${id}`), 404, 'not_found', `DELETE ${id}`);
      }

      // Query strings are checked too.
      const q = (p: string) => client.get(p);
      refused(await q(`${API.adminUsers}?query=${'x'.repeat(51)}`), 400, 'invalid_input', 'long query');
      expectError(await q(`${API.adminUsers}?query=a&role=admin`), 400, 'invalid_input', 'Unknown field: role');
      refused(await q(`${API.adminAudit}?before=${'1'.repeat(101)}`), 400, 'invalid_input', 'long cursor');
      expect(await snapshot(t, ids)).toEqual(before);
    });
  });
});

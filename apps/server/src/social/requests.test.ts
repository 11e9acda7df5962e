/**
 * Message requests and notifications against a real server, the client bypassed: raw
 * HTTP with the session cookie and raw WebSocket frames. Runs on SQLite, and on
 * PostgreSQL too when TEST_DATABASE_URL is set.
 */
import { chatIdOf, type NotificationItem } from '@app/protocol';
import { beforeEach, describe, expect, it } from 'vitest';
import { ENGINES, LOOSE_LIMITS, useTestServer } from '../test/harness.ts';
import { connectedPerson, setPrivacy, settle, updatesOf, waitUpdate } from '../test/people.ts';
import { WsTestClient } from '../test/ws-client.ts';

const REQUEST_PENDING = 'Your message request is waiting to be accepted';

describe.each(ENGINES)('on $name', ({ url }) => {
  const t = useTestServer({ engine: url, tag: 'req', config: { rateLimits: LOOSE_LIMITS } });
  const person = () => connectedPerson(t);

  function typingFrames(ws: WsTestClient) {
    return ws.frames.filter((f) => f.t === 'typing');
  }

  async function messageCount(a: string, b: string) {
    const r = await t.server.ctx.store.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('chat_id', '=', chatIdOf(a, b))
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  async function contactsOf(userId: string) {
    const rows = await t.server.ctx.store.db
      .selectFrom('contacts')
      .select('other_id')
      .where('user_id', '=', userId)
      .execute();
    return rows.map((r) => r.other_id);
  }

  let n = 0;
  const mid = () => `q-${Date.now().toString(36)}-${++n}`;

  describe('message requests', () => {
    it('a stranger’s first message becomes a request; nothing is stored; other sends wait', async () => {
      const a = await person();
      const b = await person();
      await setPrivacy(b, { requireRequest: true });
      await waitUpdate(b.ws, 'privacy', 0, (u) => u.privacy.requireRequest);
      expect((await a.ws.request('history', { peerId: b.user.id })).access).toEqual({ state: 'request' });

      const aSeq = a.ws.lastSeq;
      const bSeq = b.ws.lastSeq;
      const msgId = mid();
      const before = Date.now();
      const sealed = await a.ws.sealedSend(b.user.id, 'hi, may I?', msgId);
      // A stranger's first message brings the chat's first key, like any first message.
      expect(sealed.chatKey?.epoch).toBe(1);
      const r = await a.ws.request('send', sealed);
      expect(r).toEqual({
        request: { state: 'pending', msgId, ct: sealed.ct, legacyText: null, timestamp: expect.any(Number) },
      });
      const pending = (r as { request: { timestamp: number } }).request;
      expect(pending.timestamp).toBeGreaterThanOrEqual(before);

      // No message and no chat on either side.
      expect(await messageCount(a.user.id, b.user.id)).toBe(0);
      expect((await a.ws.request('chats')).chats).toEqual([]);
      expect((await b.ws.request('chats')).chats).toEqual([]);
      expect(updatesOf(a.ws, 'message', aSeq)).toEqual([]);

      // b is told with a notification, a with an access update.
      const note = await waitUpdate(b.ws, 'notification', bSeq);
      expect(note.notification).toEqual({
        type: 'request',
        id: expect.any(String),
        fromId: a.user.id,
        fromUsername: a.user.username,
        msgId,
        ct: sealed.ct,
        legacyText: null,
        timestamp: pending.timestamp,
        read: false,
      });
      expect(await b.ws.notificationText(note.notification)).toBe('hi, may I?');
      expect(updatesOf(b.ws, 'message', bSeq)).toEqual([]);
      expect((await waitUpdate(a.ws, 'access', aSeq)).access).toEqual(pending);
      expect((await a.ws.request('history', { peerId: b.user.id })).access).toEqual(pending);
      expect((await a.ws.request('history', { peerId: b.user.id })).messages).toEqual([]);

      // Another message waits; the retry of the request itself is acknowledged again.
      expect(await a.ws.requestError('send', await a.ws.sealedSend(b.user.id, 'hello??'))).toMatchObject({
        code: 'request_pending',
        message: REQUEST_PENDING,
      });
      expect(await a.ws.send(b.user.id, 'hi, may I?', msgId)).toEqual({ request: pending });
      await settle(b.ws);
      expect(updatesOf(b.ws, 'notification', bSeq)).toHaveLength(1);
      const list = await b.ws.request('notifications');
      expect(list.items.filter((i) => i.type === 'request')).toHaveLength(1);
      expect(await messageCount(a.user.id, b.user.id)).toBe(0);
    });

    it('Accept: contacts both ways, the request becomes the first message, and a may write and type', async () => {
      const a = await person();
      const b = await person();
      const eve = await person();
      await setPrivacy(b, { requireRequest: true });
      const msgId = mid();
      const sent = await a.ws.send(b.user.id, 'hello b', msgId);
      const ct = 'request' in sent && sent.request.state === 'pending' ? sent.request.ct : null;
      expect(ct).toEqual(expect.any(String));
      const request = (await waitUpdate(b.ws, 'notification')).notification;

      // Typing from a stranger is not delivered.
      a.ws.sendRaw({ t: 'typing', to: b.user.id, typing: true });
      await settle(a.ws);
      await settle(b.ws);
      expect(typingFrames(b.ws)).toEqual([]);

      // Only the addressee may answer.
      for (const p of [a, eve]) {
        expect(await p.ws.requestError('respondRequest', { notificationId: request.id, accept: true })).toMatchObject({
          code: 'not_found',
        });
      }
      expect(
        await b.ws.requestError('respondRequest', { notificationId: 'no-such-notification', accept: true }),
      ).toMatchObject({ code: 'not_found' });
      expect(await contactsOf(b.user.id)).toEqual([]);
      expect(await messageCount(a.user.id, b.user.id)).toBe(0);

      const aSeq = a.ws.lastSeq;
      const bSeq = b.ws.lastSeq;
      expect(await b.ws.request('respondRequest', { notificationId: request.id, accept: true })).toEqual({
        accepted: true,
      });
      expect(await contactsOf(a.user.id)).toEqual([b.user.id]);
      expect(await contactsOf(b.user.id)).toEqual([a.user.id]);

      // b: the request is gone and its text arrives as a message from a.
      expect((await waitUpdate(b.ws, 'notificationRemoved', bSeq)).id).toBe(request.id);
      const bMsg = await waitUpdate(b.ws, 'message', bSeq);
      // The same ciphertext (same message id, so the same associated data): b opens it.
      expect(bMsg.message).toMatchObject({ id: msgId, senderId: a.user.id, recipientId: b.user.id, ct, rev: 0 });
      expect(await b.ws.textOf(bMsg.message)).toBe('hello b');
      expect((await b.ws.request('notifications')).items.some((i) => i.id === request.id)).toBe(false);
      const bChat = (await b.ws.request('chats')).chats[0];
      expect(bChat).toMatchObject({ peerId: a.user.id, last: { id: msgId, ct }, unreadCount: 1 });
      expect(bChat && (await b.ws.lastText(bChat))).toBe('hello b');

      // a: access open, an info notification, and the message.
      expect((await waitUpdate(a.ws, 'access', aSeq)).access).toEqual({ state: 'open' });
      const info = (await waitUpdate(a.ws, 'notification', aSeq)).notification;
      expect(info).toMatchObject({
        type: 'info',
        message: `@${b.user.username} accepted your message request. You can now message each other.`,
        read: false,
      });
      expect((await waitUpdate(a.ws, 'message', aSeq)).message.id).toBe(msgId);
      const aList = await a.ws.request('notifications');
      expect(aList.items.find((i) => i.id === info.id)).toEqual(info);
      expect(aList.unseen).toBe(1);
      // An info item is no request to answer.
      expect(await a.ws.requestError('respondRequest', { notificationId: info.id, accept: true })).toMatchObject({
        code: 'not_found',
      });

      for (const [p, peer] of [
        [a, b],
        [b, a],
      ] as const) {
        const h = await p.ws.request('history', { peerId: peer.user.id });
        expect(h.access).toEqual({ state: 'open' });
        expect(h.messages.map((m) => [m.id, m.senderId, m.ct])).toEqual([[msgId, a.user.id, ct]]);
        expect(await p.ws.textOf(h.messages[0] as (typeof h.messages)[number])).toBe('hello b');
      }

      // Now a writes normally (under the key the request brought), and typing gets through.
      const next = await a.ws.sendMessage(b.user.id, 'thanks!');
      expect(await b.ws.textOf(next)).toBe('thanks!');
      expect((await b.ws.request('chatKeys', { chatId: next.chatId })).chatKeys.map((k) => k.epoch)).toEqual([1]);
      a.ws.sendRaw({ t: 'typing', to: b.user.id, typing: true });
      await b.ws.waitFor(() => typingFrames(b.ws).length > 0);
      expect(typingFrames(b.ws)).toEqual([{ t: 'typing', from: a.user.id, typing: true }]);
      // The old request id, retried, is the stored message now; the request cannot be answered twice.
      expect(await a.ws.send(b.user.id, 'hello b', msgId)).toMatchObject({ message: { id: msgId, ct } });
      expect(await b.ws.requestError('respondRequest', { notificationId: request.id, accept: false })).toMatchObject({
        code: 'not_found',
      });
      expect(await messageCount(a.user.id, b.user.id)).toBe(2);
    });

    it('Decline only removes the notification: no contacts, no message; the stranger may ask again', async () => {
      const a = await person();
      const b = await person();
      await setPrivacy(b, { requireRequest: true });
      await a.ws.send(b.user.id, 'knock knock');
      const request = (await waitUpdate(b.ws, 'notification')).notification;
      const aSeq = a.ws.lastSeq;
      const bSeq = b.ws.lastSeq;
      expect(await b.ws.request('respondRequest', { notificationId: request.id, accept: false })).toEqual({
        accepted: false,
      });
      expect((await waitUpdate(b.ws, 'notificationRemoved', bSeq)).id).toBe(request.id);
      expect((await waitUpdate(a.ws, 'access', aSeq)).access).toEqual({ state: 'request' });
      await settle(a.ws);
      await settle(b.ws);
      expect(updatesOf(b.ws, 'message', bSeq)).toEqual([]);
      expect(updatesOf(a.ws, 'notification', aSeq)).toEqual([]);
      expect(updatesOf(a.ws, 'message', aSeq)).toEqual([]);
      expect((await b.ws.request('notifications')).items).toEqual([]);
      expect((await b.ws.request('chats')).chats).toEqual([]);
      expect((await a.ws.request('chats')).chats).toEqual([]);
      expect(await contactsOf(a.user.id)).toEqual([]);
      expect(await contactsOf(b.user.id)).toEqual([]);
      expect(await messageCount(a.user.id, b.user.id)).toBe(0);
      expect((await a.ws.request('history', { peerId: b.user.id })).access).toEqual({ state: 'request' });

      const again = await a.ws.send(b.user.id, 'please?');
      expect(again).toMatchObject({ request: { state: 'pending' } });
      const items = (await b.ws.request('notifications')).items;
      expect(items).toMatchObject([{ type: 'request', fromId: a.user.id }]);
      expect(await b.ws.notificationText(items[0] as NotificationItem)).toBe('please?');
    });

    it('the user who takes requests may always write; once they wrote, the other side is open', async () => {
      const a = await person();
      const b = await person();
      await setPrivacy(b, { requireRequest: true });
      // b writes to a (who takes messages from anyone).
      const first = await b.ws.sendMessage(a.user.id, 'hi a, from b');
      expect(await a.ws.textOf(first)).toBe('hi a, from b');
      expect((await a.ws.request('history', { peerId: b.user.id })).access).toEqual({ state: 'open' });
      expect((await b.ws.request('history', { peerId: a.user.id })).access).toEqual({ state: 'open' });
      const reply = await a.ws.sendMessage(b.user.id, 'hi b');
      expect(reply).toMatchObject({ senderId: a.user.id });
      expect(await b.ws.textOf(reply)).toBe('hi b');
      a.ws.sendRaw({ t: 'typing', to: b.user.id, typing: true });
      await b.ws.waitFor(() => typingFrames(b.ws).length > 0);
      expect((await b.ws.request('notifications')).items).toEqual([]);

      expect(await messageCount(a.user.id, b.user.id)).toBe(2);
      expect(await contactsOf(b.user.id)).toEqual([]);
    });

    it('a pending requester whom the user writes to directly is told at once that they may write', async () => {
      const a = await person();
      const b = await person();
      await setPrivacy(b, { requireRequest: true });
      await a.ws.send(b.user.id, 'may I?');
      await waitUpdate(a.ws, 'access', 0, (u) => u.access.state === 'pending');
      const aSeq = a.ws.lastSeq;
      await b.ws.sendMessage(a.user.id, 'sure, go ahead');
      // a's open chat stops saying "waiting" without reloading it.
      expect((await waitUpdate(a.ws, 'access', aSeq)).access).toEqual({ state: 'open' });
      expect((await a.ws.request('history', { peerId: b.user.id })).access).toEqual({ state: 'open' });
      expect(await b.ws.textOf(await a.ws.sendMessage(b.user.id, 'thanks'))).toBe('thanks');
      // Later messages from b change nothing more.
      const later = a.ws.lastSeq;
      await b.ws.sendMessage(a.user.id, 'again');
      await waitUpdate(a.ws, 'message', later);
      await settle(a.ws);
      expect(updatesOf(a.ws, 'access', later)).toEqual([]);
    });
  });

  describe('notifications', () => {
    const db = () => t.server.ctx.store.db;
    // Broadcasts are global: each test starts without any.
    beforeEach(async () => {
      await db().deleteFrom('notifications').execute();
    });

    async function broadcast(
      message: string,
      timestamp: number,
      urls: { image?: string | null; video?: string | null } = {},
    ) {
      const id = `bc-${mid()}`;
      await db()
        .insertInto('notifications')
        .values({
          id,
          message,
          image_url: urls.image ?? null,
          video_url: urls.video ?? null,
          timestamp,
          from_id: 'admin',
        })
        .execute();
      return id;
    }

    it('merge personal items and broadcasts newest first; unsafe media URLs come out null', async () => {
      const a = await person();
      const b = await person();
      const T0 = Date.now();
      await broadcast('old news', T0 - 60_000);
      await broadcast('safe', T0 - 30_000, {
        image: 'https://i.example.com/a.png',
        video: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
      });
      await broadcast('evil', T0 - 20_000, {
        image: 'javascript:alert(1)',
        video: 'https://evil.example.com/watch?v=dQw4w9WgXcQ',
      });
      await broadcast('vimeo', T0 - 10_000, {
        image: 'data:image/png;base64,AAAA',
        video: 'https://vimeo.com/76979871',
      });
      await broadcast('look-alike', T0 - 5_000, {
        image: 'ftp://i.example.com/a.png',
        video: 'https://youtube.com.evil.com/watch?v=dQw4w9WgXcQ',
      });
      // b saw /notifications between the first and the second broadcast.
      await db()
        .updateTable('users')
        .set({ notifications_seen_at: T0 - 45_000 })
        .where('id', '=', b.user.id)
        .execute();
      await setPrivacy(b, { requireRequest: true });
      await a.ws.send(b.user.id, 'knock knock');

      const list = await b.ws.request('notifications');
      expect(await Promise.all(list.items.map(async (i) => [i.type, await b.ws.notificationText(i), i.read]))).toEqual([
        ['request', 'knock knock', false],
        ['admin', 'look-alike', false],
        ['admin', 'vimeo', false],
        ['admin', 'evil', false],
        ['admin', 'safe', false],
        ['admin', 'old news', true],
      ]);
      const byMessage = new Map(list.items.flatMap((i) => (i.type === 'request' ? [] : [[i.message, i] as const])));
      expect(byMessage.get('safe')).toMatchObject({
        imageUrl: 'https://i.example.com/a.png',
        videoUrl: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
        timestamp: T0 - 30_000,
      });
      expect(byMessage.get('evil')).toMatchObject({ imageUrl: null, videoUrl: null });
      expect(byMessage.get('vimeo')).toMatchObject({ imageUrl: null, videoUrl: 'https://vimeo.com/76979871' });
      expect(byMessage.get('look-alike')).toMatchObject({ imageUrl: null, videoUrl: null });
      expect(byMessage.get('old news')).toMatchObject({ imageUrl: null, videoUrl: null });
      expect(list.unseen).toBe(1 + 4);

      // a never opened /notifications: every broadcast is unseen, and a has no personal items.
      const aList = await a.ws.request('notifications');
      expect(aList.items.every((i) => i.type === 'admin' && !i.read)).toBe(true);
      expect(aList.unseen).toBe(5);
    });

    it('notificationsSeen clears the count and tells the user’s other sockets; newer items count again', async () => {
      const a = await person();
      const b = await person();
      await broadcast('before', Date.now() - 1000);
      await setPrivacy(b, { requireRequest: true });
      await a.ws.send(b.user.id, 'hello');
      await waitUpdate(b.ws, 'notification');
      const bTab = await WsTestClient.connect(t, b.client.cookie);
      expect((await bTab.request('notifications')).unseen).toBe(2);

      const tabSeq = bTab.lastSeq;
      const before = Date.now();
      expect(await b.ws.request('notificationsSeen')).toEqual({ unseen: 0 });
      const seen = await waitUpdate(bTab, 'notificationsSeen', tabSeq);
      expect(seen.at).toBeGreaterThanOrEqual(before);
      await waitUpdate(b.ws, 'notificationsSeen', tabSeq);
      for (const ws of [b.ws, bTab]) {
        const list = await ws.request('notifications');
        expect(list.unseen).toBe(0);
        expect(await Promise.all(list.items.map(async (i) => [await ws.notificationText(i), i.read]))).toEqual([
          ['hello', true],
          ['before', true],
        ]);
      }
      // Only b's: a still has the broadcast unseen.
      expect((await a.ws.request('notifications')).unseen).toBe(1);

      // A later broadcast and a new request count again.
      await broadcast('after', seen.at + 1);
      const c = await person();
      await c.ws.send(b.user.id, 'me too');
      await waitUpdate(bTab, 'notification', tabSeq, (u) => u.notification.type === 'request');
      const list = await bTab.request('notifications');
      expect(list.unseen).toBe(2);
      expect(await Promise.all(list.items.map(async (i) => [await bTab.notificationText(i), i.read]))).toEqual([
        ['me too', false],
        ['after', false],
        ['hello', true],
        ['before', true],
      ]);
      // A fresh socket (resumed or not) agrees.
      const fresh = await WsTestClient.connect(t, b.client.cookie, tabSeq);
      await fresh.waitFor(() => fresh.updates().some((u) => u.update.kind === 'notificationsSeen'));
      expect((await fresh.request('notifications')).unseen).toBe(2);
      await fresh.close();
      await bTab.close();
    });
  });
});

/**
 * Privacy settings, PIN rules, locked chats and contact requests hold when the client is
 * bypassed: raw HTTP with the session cookie and raw WebSocket frames to a real server.
 */
import { API, chatIdOf, PIN_FAILURES_MAX, SOCIAL_MSG } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { authOf, randomAuth } from '../test/accounts.ts';
import { expectError, LOOSE_LIMITS, signInWith, signUp, useTestServer } from '../test/harness.ts';
import { WsTestClient } from '../test/ws-client.ts';

const t = useTestServer({ config: { rateLimits: LOOSE_LIMITS } });

async function person() {
  const p = await signUp(t);
  return { ...p, ws: await WsTestClient.connect(t, p.client.cookie) };
}
type Person = Awaited<ReturnType<typeof person>>;

async function privacy(
  p: Person,
  change: Partial<{ readReceipts: boolean; lastSeen: boolean; requireRequest: boolean }>,
) {
  const res = await p.client.request('PUT', API.privacy, {
    readReceipts: true,
    lastSeen: true,
    requireRequest: false,
    ...change,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

let n = 0;
const mid = () => `s-${Date.now().toString(36)}-${++n}`;

describe('read receipts', () => {
  it('off for the reader: reading clears the unread count but the sender never sees read', async () => {
    const a = await person();
    const b = await person();
    await privacy(b, { readReceipts: false });
    const m = await a.ws.sendMessage(b.user.id, 'did you read this?');
    await b.ws.request('read', { peerId: a.user.id });
    expect((await b.ws.request('chats')).chats[0]?.unreadCount).toBe(0);
    const history = await a.ws.request('history', { peerId: b.user.id });
    expect(history.messages.find((x) => x.id === m.id)).toMatchObject({ status: 'delivered', readAt: null });
    expect(a.ws.updates().some((u) => u.update.kind === 'message' && u.update.message.status === 'read')).toBe(false);
  });

  it('off for the sender: their own messages show delivered at most, live, in history and on resume', async () => {
    const a = await person();
    const b = await person();
    await privacy(a, { readReceipts: false });
    const m = await a.ws.sendMessage(b.user.id, 'hello');
    const seq = a.ws.lastSeq;
    await b.ws.request('read', { peerId: a.user.id });
    // The truth is stored (b reads with receipts on) …
    expect((await b.ws.request('history', { peerId: a.user.id })).messages[0]?.status).toBe('read');
    // … but a never sees it.
    await a.ws.waitFor(() => a.ws.updates().some((u) => u.update.kind === 'message' && u.seq > seq));
    const live = a.ws.updates().filter((u) => u.update.kind === 'message' && u.seq > seq);
    for (const u of live) if (u.update.kind === 'message') expect(u.update.message.status).not.toBe('read');
    expect((await a.ws.request('history', { peerId: b.user.id })).messages[0]).toMatchObject({
      id: m.id,
      status: 'delivered',
      readAt: null,
    });
    const resumed = await WsTestClient.connect(t, a.client.cookie, seq);
    expect(resumed.welcome?.resumed).toBe(true);
    await resumed.waitFor(() => resumed.updates().length > 0);
    for (const u of resumed.updates()) if (u.update.kind === 'message') expect(u.update.message.readAt).toBeNull();
    await resumed.close();
  });
});

describe('last seen', () => {
  it('hidden by the user: others get null; hidden by the viewer: the viewer gets null for everyone', async () => {
    const a = await person();
    const b = await person();
    expect((await a.ws.request('user', { userId: b.user.id })).presence.lastSeen).not.toBeNull();
    await privacy(b, { lastSeen: false });
    expect((await a.ws.request('user', { userId: b.user.id })).presence.lastSeen).toBeNull();
    await a.ws.request('watch', { userIds: [b.user.id] });
    await b.ws.close();
    await a.ws.waitFor(() => a.ws.frames.some((f) => f.t === 'presence' && !f.presence.online));
    const off = a.ws.frames.find((f) => f.t === 'presence' && !f.presence.online);
    expect(off?.t === 'presence' && off.presence.lastSeen).toBeNull();

    const c = await person();
    await privacy(a, { lastSeen: false });
    // a hides their own: c's time (shown to everyone else) is not shown to a.
    expect((await a.ws.request('user', { userId: c.user.id })).presence.lastSeen).toBeNull();
    const d = await person();
    expect((await d.ws.request('user', { userId: c.user.id })).presence.lastSeen).not.toBeNull();
  });
});

describe('message requests', () => {
  it('a stranger requests, is refused until accepted; Accept makes contacts and delivers the request', async () => {
    const a = await person();
    const b = await person();
    await privacy(b, { requireRequest: true });
    expect((await a.ws.request('history', { peerId: b.user.id })).access).toEqual({ state: 'request' });
    const msgId = mid();
    const sealed = await a.ws.sealedSend(b.user.id, 'hi, may I?', msgId);
    const r = await a.ws.request('send', sealed);
    expect(r).toMatchObject({ request: { state: 'pending', msgId, ct: sealed.ct, legacyText: null } });
    // A retry of the same send (sealed anew) is acknowledged again with the first; another message is refused.
    expect(await a.ws.send(b.user.id, 'hi, may I?', msgId)).toMatchObject({
      request: { state: 'pending', msgId, ct: sealed.ct },
    });
    const refused = await a.ws.requestError('send', await a.ws.sealedSend(b.user.id, 'hello??'));
    expect(refused).toMatchObject({ code: 'request_pending', message: SOCIAL_MSG.requestPending });
    expect((await b.ws.request('chats')).chats).toEqual([]);
    // Typing from a stranger does not reach b.
    a.ws.sendRaw({ t: 'typing', to: b.user.id, typing: true });

    const list = await b.ws.request('notifications');
    expect(list.unseen).toBe(1);
    const req = list.items[0];
    expect(req).toMatchObject({
      type: 'request',
      fromId: a.user.id,
      fromUsername: a.user.username,
      msgId,
      ct: sealed.ct,
      legacyText: null,
    });
    if (req?.type !== 'request') throw new Error('no request');
    expect(await b.ws.requestText(req, a.user.id, b.user.id)).toBe('hi, may I?');
    // Only the addressee may answer.
    expect(await a.ws.requestError('respondRequest', { notificationId: req?.id, accept: true })).toMatchObject({
      code: 'not_found',
    });
    await b.ws.request('respondRequest', { notificationId: req?.id, accept: true });
    expect(b.ws.frames.some((f) => f.t === 'typing')).toBe(false);

    const history = await a.ws.request('history', { peerId: b.user.id });
    expect(history.access).toEqual({ state: 'open' });
    expect(history.messages.map((m) => [m.id, m.ct, m.rev])).toEqual([[msgId, sealed.ct, 0]]);
    for (const m of history.messages) expect(await b.ws.textOf(m)).toBe('hi, may I?');
    for (const m of history.messages) expect(await a.ws.textOf(m)).toBe('hi, may I?');
    await a.ws.waitFor(() =>
      a.ws.updates().some((u) => u.update.kind === 'access' && u.update.access.state === 'open'),
    );
    const info = (await a.ws.request('notifications')).items.find((i) => i.type === 'info');
    expect(info?.message).toContain(SOCIAL_MSG.requestAccepted);
    await a.ws.sendMessage(b.user.id, 'thanks!');
    expect((await b.ws.request('notifications')).items.some((i) => i.type === 'request')).toBe(false);
  });

  it('Decline only removes the request; someone the user wrote to may answer directly', async () => {
    const a = await person();
    const b = await person();
    await privacy(b, { requireRequest: true });
    expect(await a.ws.send(b.user.id, 'hello')).toMatchObject({ request: { state: 'pending' } });
    const req = (await b.ws.request('notifications')).items[0];
    await b.ws.request('respondRequest', { notificationId: req?.id, accept: false });
    expect((await b.ws.request('notifications')).items).toEqual([]);
    expect((await b.ws.request('chats')).chats).toEqual([]);
    expect((await a.ws.request('history', { peerId: b.user.id })).access).toEqual({ state: 'request' });
    const contacts = await t.server.ctx.store.db
      .selectFrom('contacts')
      .selectAll()
      .where('user_id', '=', b.user.id)
      .execute();
    expect(contacts).toEqual([]);

    await b.ws.sendMessage(a.user.id, 'actually, hi');
    expect((await a.ws.request('history', { peerId: b.user.id })).access).toEqual({ state: 'open' });
    await a.ws.sendMessage(b.user.id, 'hi back');
  });
});

describe('PIN', () => {
  it('is stored as argon2id; changing or removing it needs the password; five wrong ones lock checks out', async () => {
    const a = await person();
    expectError(await a.client.request('PUT', API.pin, { pin: '12345' }), 400, 'invalid_input', SOCIAL_MSG.pinFormat);
    expectError(await a.client.request('PUT', API.pin, { pin: '12345a' }), 400, 'invalid_input', SOCIAL_MSG.pinFormat);
    expect((await a.client.request('PUT', API.pin, { pin: '123456' })).status).toBe(200);
    const row = await t.server.ctx.store.db
      .selectFrom('users')
      .select('pin_hash')
      .where('id', '=', a.user.id)
      .executeTakeFirst();
    expect(row?.pin_hash).toMatch(/^\$argon2id\$/);
    expect(row?.pin_hash).not.toContain('123456');

    expectError(await a.client.request('PUT', API.pin, { pin: '654321' }), 403, 'wrong_password');
    const wrong = await authOf(a.client, 'wrong-password');
    expectError(await a.client.request('PUT', API.pin, { pin: '654321', auth: wrong }), 403, 'wrong_password');
    expectError(await a.client.request('DELETE', API.pin, { auth: wrong }), 403, 'wrong_password');
    expectError(await a.client.request('DELETE', API.pin, { auth: randomAuth() }), 403, 'wrong_password');
    // The password itself is not the credential.
    expectError(
      await a.client.request('PUT', API.pin, { pin: '654321', password: a.input.password }),
      400,
      'invalid_input',
    );

    // A right PIN resets the count of wrong ones.
    for (let i = 0; i < PIN_FAILURES_MAX - 1; i++) {
      expectError(await a.client.post(API.verifyPin, { pin: '000000' }), 403, 'invalid_pin');
    }
    expect((await a.client.post(API.verifyPin, { pin: '123456' })).status).toBe(200);
    for (let i = 0; i < PIN_FAILURES_MAX - 1; i++) {
      expectError(await a.client.post(API.verifyPin, { pin: '000000' }), 403, 'invalid_pin');
    }
    const before = Date.now();
    const locked = await a.client.post(API.verifyPin, { pin: '000000' });
    expectError(locked, 429, 'pin_locked', SOCIAL_MSG.pinLocked);
    expect(locked.body.retryAt).toBeGreaterThanOrEqual(before + 15 * 60_000 - 1000);
    // Even the right PIN is refused until then.
    expectError(await a.client.post(API.verifyPin, { pin: '123456' }), 429, 'pin_locked');

    // The account password replaces the PIN ("Forgot PIN?"), which also ends the lock-out.
    const changed = await a.client.request('PUT', API.pin, {
      pin: '222222',
      auth: await authOf(a.client, a.input.password),
    });
    expect(changed.status).toBe(200);
    expect(changed.body.pinLockedUntil).toBeNull();
    expect((await a.client.post(API.verifyPin, { pin: '222222' })).status).toBe(200);
  });
});

describe('locked chats', () => {
  it('need a PIN to lock; without a grant their text stays on the server; the grant opens them', async () => {
    const a = await person();
    const b = await person();
    await b.ws.sendMessage(a.user.id, 'secret one');
    expect(await a.ws.requestError('chatFlags', { peerId: b.user.id, locked: true })).toMatchObject({
      code: 'pin_required',
    });
    // No chat, no flags.
    const stranger = await person();
    expect(await a.ws.requestError('chatFlags', { peerId: stranger.user.id, archived: true })).toMatchObject({
      code: 'not_found',
    });
    expect((await a.client.request('PUT', API.pin, { pin: '123456' })).status).toBe(200);
    const { chat } = await a.ws.request('chatFlags', { peerId: b.user.id, locked: true });
    expect(chat).toMatchObject({ locked: true, last: null });

    expect(await a.ws.requestError('history', { peerId: b.user.id })).toMatchObject({ code: 'locked' });
    expect((await a.ws.request('chats')).chats[0]).toMatchObject({ locked: true, last: null });
    const seq = a.ws.lastSeq;
    const sent = await b.ws.sendMessage(a.user.id, 'secret two');
    expect(await b.ws.textOf(sent)).toBe('secret two');
    await a.ws.waitFor(() => a.ws.updates().some((u) => u.seq > seq && u.update.kind === 'message'));
    const pushed = a.ws.updates().filter((u) => u.seq > seq);
    // Not even the ciphertext: the message comes without it, the chat without its newest.
    expect(JSON.stringify(pushed)).not.toContain(sent.ct);
    expect(pushed.find((u) => u.update.kind === 'message')?.update).toMatchObject({
      message: { id: sent.id, ct: null, legacyText: null },
    });
    expect(await a.ws.requestError('chatFlags', { peerId: b.user.id, locked: false })).toMatchObject({
      code: 'locked',
    });

    expectError(await a.client.post(API.verifyPin, { pin: '999999' }), 403, 'invalid_pin');
    expect((await a.client.post(API.verifyPin, { pin: '123456' })).status).toBe(200);
    const granted = (await a.ws.request('history', { peerId: b.user.id })).messages;
    expect(await Promise.all(granted.map((m) => a.ws.textOf(m)))).toEqual(['secret one', 'secret two']);
    // A new socket of the same session shares the grant; another session does not.
    const again = await WsTestClient.connect(t, a.client.cookie);
    expect((await again.request('history', { peerId: b.user.id })).messages).toHaveLength(2);
    await again.close();
    const other = t.client();
    expect((await signInWith(other, a.input.email, a.input.password)).status).toBe(200);
    const otherWs = await WsTestClient.connect(t, other.cookie);
    expect(await otherWs.requestError('history', { peerId: b.user.id })).toMatchObject({ code: 'locked' });

    // Removing the PIN unlocks every locked chat.
    const auth = await authOf(a.client, a.input.password);
    expect((await a.client.request('DELETE', API.pin, { auth })).status).toBe(200);
    await otherWs.waitFor(() => otherWs.updates().some((u) => u.update.kind === 'chat' && !u.update.chat.locked));
    expect((await otherWs.request('history', { peerId: b.user.id })).messages).toHaveLength(2);
    await otherWs.close();
  });

  it('archiving keeps a chat archived when a message arrives, with its unread count', async () => {
    const a = await person();
    const b = await person();
    await b.ws.sendMessage(a.user.id, 'one');
    await a.ws.request('chatFlags', { peerId: b.user.id, archived: true });
    await b.ws.sendMessage(a.user.id, 'two');
    expect((await a.ws.request('chats')).chats[0]).toMatchObject({ archived: true, unreadCount: 2 });
    const { chat } = await a.ws.request('chatFlags', { peerId: b.user.id, archived: false });
    expect(chat.archived).toBe(false);
    expect(chatIdOf(a.user.id, b.user.id)).toBe(chat.chatId);
  });
});

describe('profile', () => {
  it('validates like sign-up, refuses non-http picture URLs, and tells chat peers live', async () => {
    const a = await person();
    const b = await person();
    await b.ws.sendMessage(a.user.id, 'hi');
    const base = { name: 'New Name', phone: '5551234567', age: 30, profilePic: null };
    for (const pic of ['javascript:alert(1)', 'data:image/png;base64,AAAA', 'ftp://example.com/a.png', 'not a url']) {
      expectError(
        await a.client.request('PUT', API.profile, { ...base, profilePic: pic }),
        400,
        'invalid_input',
        SOCIAL_MSG.pictureUrl,
      );
    }
    expectError(
      await a.client.request('PUT', API.profile, { ...base, name: 'A' }),
      400,
      'invalid_input',
      'Name must be at least 2 characters',
    );
    expectError(
      await a.client.request('PUT', API.profile, { ...base, age: 12 }),
      400,
      'invalid_input',
      'Age must be between 13 and 120',
    );
    expectError(await a.client.request('PUT', API.profile, { ...base, username: 'x' }), 400, 'invalid_input');
    expectError(await t.client().request('PUT', API.profile, base), 401, 'unauthenticated');

    const seq = b.ws.lastSeq;
    const res = await a.client.request('PUT', API.profile, { ...base, profilePic: 'https://pics.example.com/me.png' });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ name: 'New Name', profilePic: 'https://pics.example.com/me.png' });
    await b.ws.waitFor(() => b.ws.updates().some((u) => u.seq > seq && u.update.kind === 'peer'));
    const peer = b.ws.updates().find((u) => u.seq > seq && u.update.kind === 'peer');
    expect(peer?.update).toMatchObject({
      user: { id: a.user.id, name: 'New Name', profilePic: 'https://pics.example.com/me.png' },
    });
    expect(JSON.stringify(peer)).not.toContain(a.input.email);
  });
});

describe('notifications', () => {
  it('merge broadcasts with personal items, count what is unseen, and mark it seen on every socket', async () => {
    const a = await person();
    const b = await person();
    const db = t.server.ctx.store.db;
    await db
      .insertInto('notifications')
      .values([
        {
          id: `bc-${mid()}`,
          message: 'safe',
          video_url: 'https://youtu.be/dQw4w9WgXcQ',
          image_url: 'https://i.example.com/a.png',
          timestamp: Date.now(),
          from_id: 'admin',
        },
        {
          id: `bc-${mid()}`,
          message: 'evil',
          video_url: 'https://evil.example.com/v',
          image_url: 'javascript:alert(1)',
          timestamp: Date.now() + 1,
          from_id: 'admin',
        },
      ])
      .execute();
    await privacy(b, { requireRequest: true });
    await a.ws.send(b.user.id, 'knock knock');
    const list = await b.ws.request('notifications');
    const mine = list.items.filter((i) => i.type === 'request' || i.message === 'safe' || i.message === 'evil');
    expect(mine.map((i) => i.type)).toEqual(['request', 'admin', 'admin']);
    expect(mine[1]).toMatchObject({ message: 'evil', imageUrl: null, videoUrl: null });
    expect(mine[2]).toMatchObject({
      message: 'safe',
      imageUrl: 'https://i.example.com/a.png',
      videoUrl: 'https://youtu.be/dQw4w9WgXcQ',
    });
    expect(list.unseen).toBeGreaterThanOrEqual(3);

    const tab2 = await WsTestClient.connect(t, b.client.cookie);
    expect((await b.ws.request('notificationsSeen')).unseen).toBe(0);
    await tab2.waitFor(() => tab2.updates().some((u) => u.update.kind === 'notificationsSeen'));
    expect((await tab2.request('notifications')).unseen).toBe(0);
    await tab2.close();
  });
});

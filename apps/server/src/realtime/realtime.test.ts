/** /ws against a real server: handshake, permissions, idempotent sends, status, resume after a gap. */
import { connect } from 'node:net';
import { CLOSE, chatIdOf, MESSAGE_MAX, PROTOCOL_VERSION } from '@app/protocol';
import { sampleCiphertext } from '@app/protocol/test/samples';
import { describe, expect, it } from 'vitest';
import { LOOSE_LIMITS, signUp, useTestServer } from '../test/harness.ts';
import { WsTestClient } from '../test/ws-client.ts';

const t = useTestServer({ config: { rateLimits: LOOSE_LIMITS } });

async function pair() {
  const a = await signUp(t);
  const b = await signUp(t);
  return {
    a: { ...a, ws: await WsTestClient.connect(t, a.client.cookie) },
    b: { ...b, ws: await WsTestClient.connect(t, b.client.cookie) },
  };
}

let n = 0;
const mid = () => `m-${Date.now().toString(36)}-${++n}`;

describe('upgrade and handshake', () => {
  it('refuses a socket without a session, with a tampered cookie, blocked, or from another origin', async () => {
    const { client } = await signUp(t);
    for (const cookie of [null, `${client.cookie}x`]) {
      const anon = await WsTestClient.open(t, cookie);
      await anon.waitClosed();
      expect(anon.closed?.code).toBe(CLOSE.unauthenticated);
    }
    await expect(WsTestClient.open(t, client.cookie, { origin: 'https://evil.example' })).rejects.toThrow('HTTP 403');
    await expect(WsTestClient.open(t, client.cookie, { origin: '' })).rejects.toThrow('HTTP 403');
    const other = await signUp(t);
    await t.server.ctx.store.setFlags(other.user.id, { blocked: true });
    const blocked = await WsTestClient.open(t, other.client.cookie);
    await blocked.waitClosed();
    expect(blocked.closed?.code).toBe(CLOSE.blocked);
    const ok = await WsTestClient.connect(t, client.cookie);
    expect(ok.welcome).toMatchObject({ v: PROTOCOL_VERSION, resumed: false });
    await ok.close();
  });

  it('survives a malformed frame on a socket it is refusing', async () => {
    const { host, port } = new URL(t.url);
    const raw = connect({ host: host.replace(/:\d+$/, ''), port: Number(port) });
    raw.on('error', () => {});
    await new Promise<void>((r) => raw.once('connect', () => r()));
    raw.write(
      'GET /ws HTTP/1.1\r\nHost: ' +
        host +
        '\r\nOrigin: ' +
        t.url +
        '\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n' +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    );
    await new Promise<void>((r) => raw.once('data', () => r()));
    // A masked frame with a reserved opcode (0x3): ws answers it with an 'error' event.
    raw.write(Buffer.from([0x83, 0x80, 1, 2, 3, 4]));
    await new Promise<void>((r) => raw.once('close', () => r()));
    // Still serving.
    const { client } = await signUp(t);
    const ok = await WsTestClient.connect(t, client.cookie);
    expect(ok.welcome).toMatchObject({ v: PROTOCOL_VERSION });
    await ok.close();
  });

  it('handles frames in order: requests sent right after hello are answered after the welcome', async () => {
    const me = await signUp(t);
    const peer = await signUp(t);
    // Sealed beforehand (over another socket): the send brings the chat's first key, the edit is revision 1.
    const sealing = await WsTestClient.connect(t, me.client.cookie);
    const chatId = chatIdOf(me.user.id, peer.user.id);
    const send = await sealing.sealedSend(peer.user.id, 'one', 'order-0001');
    const edit = await sealing.sealedEdit(chatId, 'order-0001', 'uno', 1);
    const c = await WsTestClient.open(t, me.client.cookie);
    c.sendRaw({ t: 'hello', v: PROTOCOL_VERSION, lastSeq: null });
    c.sendRaw({ t: 'send', id: 'o1', ...send });
    c.sendRaw({ t: 'edit', id: 'o2', ...edit });
    await c.waitFor(() => c.frames.some((f) => f.t === 'result' && f.id === 'o2'));
    const kinds = c.frames.map((f) => (f.t === 'result' ? `result:${f.id}` : f.t));
    expect(kinds[0]).toBe('welcome');
    expect(kinds.indexOf('result:o1')).toBeLessThan(kinds.indexOf('result:o2'));
    const edited = c.frames.find((f) => f.t === 'result' && f.id === 'o2');
    expect(edited).toMatchObject({ data: { message: { id: 'order-0001', rev: 1, edited: true } } });
  });

  it('closes on a wrong protocol version and on a request before hello', async () => {
    const { client } = await signUp(t);
    const old = await WsTestClient.open(t, client.cookie);
    old.sendRaw({ t: 'hello', v: PROTOCOL_VERSION + 1, lastSeq: null });
    await old.waitClosed();
    expect(old.closed?.code).toBe(CLOSE.versionMismatch);
    const early = await WsTestClient.open(t, client.cookie);
    early.sendRaw({ t: 'chats', id: '1' });
    await early.waitClosed();
    expect(early.closed?.code).toBe(CLOSE.protocolError);
  });

  it('answers malformed frames with typed errors and keeps the socket', async () => {
    const { a } = await pair();
    a.ws.sendRaw('not json');
    a.ws.sendRaw({ t: 'nope', id: 'x1' });
    a.ws.sendRaw({ t: 'send', id: 'x2', to: 'short', msgId: 'abc', ct: sampleCiphertext() });
    await a.ws.waitFor(() => a.ws.frames.filter((f) => f.t === 'error').length >= 3);
    const errors = a.ws.frames.filter((f) => f.t === 'error');
    expect(errors.map((e) => e.code)).toEqual(['invalid_frame', 'invalid_frame', 'invalid_frame']);
    expect(errors.map((e) => e.id)).toEqual([null, 'x1', 'x2']);
    expect((await a.ws.request('chats')).chats).toEqual([]);
  });
});

describe('sending', () => {
  it('stores a message once, updates both summaries and pushes it to both users live', async () => {
    const { a, b } = await pair();
    const id = mid();
    const message = await a.ws.sendMessage(b.user.id, 'hello bob', id);
    expect(message).toMatchObject({ id, senderId: a.user.id, recipientId: b.user.id, status: 'sent', rev: 0 });
    expect(message.ct).not.toContain('hello');
    expect(await b.ws.textOf(message)).toBe('hello bob');
    // One live update: the message with the summary it made.
    await b.ws.waitFor(() => b.ws.updates().some((u) => u.update.kind === 'message'));
    const [live, ...more] = b.ws.updates();
    expect(more).toEqual([]);
    expect(live?.update).toMatchObject({ message: { id }, chat: { peerId: a.user.id, unreadCount: 1 } });
    const bChat = (await b.ws.request('chats')).chats[0];
    expect(bChat).toMatchObject({ peerId: a.user.id, unreadCount: 1 });
    expect(bChat?.last).toEqual({ id, senderId: a.user.id, ct: message.ct, rev: 0, legacyText: null, deleted: false });
    expect(bChat?.peer?.username).toBe(a.user.username);
    const aChat = (await a.ws.request('chats')).chats[0];
    expect(aChat).toMatchObject({ unreadCount: 0, last: { id, ct: message.ct } });
    expect(aChat && (await a.ws.lastText(aChat))).toBe('hello bob');

    // A retry with the same id is acknowledged again and stored once.
    const before = b.ws.updates().length;
    const again = await a.ws.sendMessage(b.user.id, 'hello bob', id);
    expect(again).toEqual(message);
    const history = await b.ws.request('history', { peerId: a.user.id });
    expect(history.messages.map((m) => m.id)).toEqual([id]);
    await a.ws.sendMessage(b.user.id, 'second');
    await b.ws.waitFor(() => b.ws.updates().length >= before + 1);
    expect((await b.ws.request('chats')).chats[0]?.unreadCount).toBe(2);
  });

  it('refuses malformed and oversized ciphertexts, self-addressed, stolen-id and unavailable-recipient sends', async () => {
    const { a, b } = await pair();
    const send = (body: Record<string, unknown>, by = a.ws) => by.requestError('send', { msgId: mid(), ...body });
    const malformed = [
      '   ',
      'hello bob',
      sampleCiphertext(1, 0, 40),
      `${sampleCiphertext()}+/`,
      sampleCiphertext(0),
      `AgAAAAEAAA${'A'.repeat(100)}`,
    ];
    for (const ct of malformed) {
      expect(await send({ to: b.user.id, ct }), ct).toMatchObject({
        code: 'invalid_frame',
        message: 'Invalid ciphertext',
      });
    }
    const long = await send({ to: b.user.id, ct: sampleCiphertext(1, 0, 15_001) });
    expect(long).toMatchObject({ code: 'invalid_frame', message: `Messages can be at most ${MESSAGE_MAX} characters` });
    // The longest text a browser sends (4,096 characters of 3 UTF-8 bytes each) fits.
    const longest = await a.ws.sendMessage(b.user.id, '€'.repeat(MESSAGE_MAX));
    expect(await b.ws.textOf(longest)).toBe('€'.repeat(MESSAGE_MAX));
    expect((await send({ to: a.user.id, ct: sampleCiphertext() })).code).toBe('forbidden');
    const id = mid();
    await a.ws.sendMessage(b.user.id, 'mine', id);
    expect((await b.ws.requestError('send', await b.ws.sealedSend(a.user.id, 'theirs', id))).code).toBe('conflict');
    const kept = (await b.ws.request('history', { peerId: a.user.id })).messages.find((m) => m.id === id);
    expect(kept && (await b.ws.textOf(kept))).toBe('mine');
    expect((await send({ to: 'A'.repeat(20), ct: sampleCiphertext() })).code).toBe('recipient_unavailable');
    await t.server.ctx.store.setFlags(b.user.id, { blocked: true });
    expect((await a.ws.requestError('send', await a.ws.sealedSend(b.user.id, 'hi'))).code).toBe(
      'recipient_unavailable',
    );
  });
});

describe('permissions and status', () => {
  it('only the sender edits or deletes; strangers cannot touch the chat', async () => {
    const { a, b } = await pair();
    const eve = await signUp(t);
    const eveWs = await WsTestClient.connect(t, eve.client.cookie);
    const id = mid();
    await a.ws.sendMessage(b.user.id, 'original', id);
    const chatId = chatIdOf(a.user.id, b.user.id);
    // b holds the chat key: a forgery of theirs would open, so the server must refuse it.
    const forged = await b.ws.sealedEdit(chatId, id, 'forged', 1);
    expect((await b.ws.requestError('edit', forged)).code).toBe('forbidden');
    expect((await b.ws.requestError('delete', await b.ws.sealedDelete(chatId, id, 1))).code).toBe('forbidden');
    expect((await eveWs.requestError('edit', forged)).code).toBe('not_found');
    expect((await eveWs.requestError('chatKeys', { chatId })).code).toBe('not_found');
    expect((await eveWs.requestError('delivered', { chatId, msgIds: [id] })).code).toBe('not_found');
    expect((await eveWs.request('history', { peerId: a.user.id })).messages).toEqual([]);
    // A message of someone else's chat is not found around in one's own (its place is not told).
    expect((await eveWs.requestError('history', { peerId: a.user.id, around: id })).code).toBe('not_found');
    expect((await b.ws.request('history', { peerId: a.user.id, around: id })).messages.map((m) => m.id)).toEqual([id]);
    const both = { peerId: a.user.id, around: id, after: { timestamp: 0, id } };
    expect(await b.ws.requestError('history', both)).toMatchObject({
      code: 'invalid_frame',
      message: 'At most one of before, after and around',
    });

    const edited = await a.ws.editMessage(chatId, id, 'fixed');
    expect(edited).toMatchObject({ rev: 1, edited: true, status: 'sent' });
    expect(await b.ws.textOf(edited)).toBe('fixed');
    const deleted = await a.ws.deleteMessage(chatId, id);
    expect(deleted).toMatchObject({ ct: expect.any(String), rev: 2, legacyText: null, deleted: true, status: 'sent' });
    expect(await b.ws.textOf(deleted)).toBeNull();
    expect((await a.ws.requestError('edit', await a.ws.sealedEdit(chatId, id, 'again', 3))).code).toBe('conflict');
    expect((await b.ws.request('chats')).chats[0]?.last).toMatchObject({ id, ct: deleted.ct, deleted: true });
  });

  it('only the recipient advances a message to delivered and read, and reading clears the unread count', async () => {
    const { a, b } = await pair();
    const chatId = chatIdOf(a.user.id, b.user.id);
    const id = mid();
    await a.ws.sendMessage(b.user.id, 'tick tock', id);
    expect((await a.ws.request('delivered', { chatId, msgIds: [id] })).count).toBe(0);
    expect((await b.ws.request('delivered', { chatId, msgIds: [id] })).count).toBe(1);
    await a.ws.waitFor(() =>
      a.ws.updates().some((u) => u.update.kind === 'message' && u.update.message.status === 'delivered'),
    );
    expect((await a.ws.request('read', { peerId: b.user.id })).count).toBe(0);
    expect((await b.ws.request('read', { peerId: a.user.id })).count).toBe(1);
    await a.ws.waitFor(() =>
      a.ws.updates().some((u) => u.update.kind === 'message' && u.update.message.status === 'read'),
    );
    const [m] = (await a.ws.request('history', { peerId: b.user.id })).messages;
    expect(m?.status).toBe('read');
    expect(m?.deliveredAt).toBeGreaterThan(0);
    expect(m?.readAt).toBeGreaterThanOrEqual(m?.deliveredAt ?? 0);
    expect((await b.ws.request('chats')).chats[0]?.unreadCount).toBe(0);
  });
});

describe('resume after a gap', () => {
  it('replays exactly the missed updates, in order, once', async () => {
    const { a, b } = await pair();
    await a.ws.sendMessage(b.user.id, 'before');
    await b.ws.waitFor(() => b.ws.updates().length >= 1);
    const seenSeq = b.ws.lastSeq;
    await b.ws.close();
    const missed = [mid(), mid(), mid()];
    for (const id of missed) await a.ws.sendMessage(b.user.id, id, id);

    const back = await WsTestClient.connect(t, b.client.cookie, seenSeq);
    expect(back.welcome?.resumed).toBe(true);
    await back.waitFor(() => back.updates().length >= 3);
    const seqs = back.updates().map((u) => u.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => seenSeq + 1 + i));
    const ids = back
      .updates()
      .flatMap((u) => (u.update.kind === 'message' ? [u.update.message.id] : []))
      .filter((id) => missed.includes(id));
    expect(ids).toEqual(missed);

    // Live updates continue after the replay without duplicates.
    await a.ws.sendMessage(b.user.id, 'after');
    await back.waitFor(() => back.updates().length >= 4);
    const all = back.updates().map((u) => u.seq);
    expect(new Set(all).size).toBe(all.length);
  });

  it('tells a client that is ahead or unknown to reload (resumed: false)', async () => {
    const { b } = await pair();
    const ahead = await WsTestClient.connect(t, b.client.cookie, 10_000);
    expect(ahead.welcome?.resumed).toBe(false);
  });
});

describe('presence, typing, search and session end', () => {
  it('is online while any socket is open and records last seen when the last one closes', async () => {
    const { a, b } = await pair();
    expect((await a.ws.request('watch', { userIds: [b.user.id] })).presence[0]).toMatchObject({ online: true });
    const second = await WsTestClient.connect(t, b.client.cookie);
    await b.ws.close();
    await new Promise((r) => setTimeout(r, 50));
    expect((await a.ws.request('user', { userId: b.user.id })).presence.online).toBe(true);
    const before = Date.now();
    await second.close();
    await a.ws.waitFor(() => a.ws.frames.some((f) => f.t === 'presence' && !f.presence.online));
    const offline = a.ws.frames.find((f) => f.t === 'presence' && !f.presence.online);
    expect(offline?.t === 'presence' && (offline.presence.lastSeen ?? 0) >= before - 5).toBe(true);
  });

  it('forwards typing to the peer and clears it when the typist leaves', async () => {
    const { a, b } = await pair();
    a.ws.sendRaw({ t: 'typing', to: b.user.id, typing: true });
    await b.ws.waitFor(() => b.ws.frames.some((f) => f.t === 'typing' && f.from === a.user.id && f.typing));
    await a.ws.close();
    await b.ws.waitFor(() => b.ws.frames.some((f) => f.t === 'typing' && f.from === a.user.id && !f.typing));
  });

  it('searches other users by handle substring in any case, never itself or blocked users', async () => {
    const tag = Date.now().toString(36).slice(-5);
    const me = await signUp(t, { username: `Zed_${tag}_me` });
    await signUp(t, { username: `Zed_${tag}_Two` });
    const blocked = await signUp(t, { username: `zed_${tag}_blk` });
    await t.server.ctx.store.setFlags(blocked.user.id, { blocked: true });
    const ws = await WsTestClient.connect(t, me.client.cookie);
    const r = await ws.request('users', { query: `ZED_${tag}` });
    expect(r.users.map((u) => u.username)).toEqual([`Zed_${tag}_Two`]);
    expect((await ws.request('users', { query: '%' })).users).toEqual([]);
    expect(r.users[0]).not.toHaveProperty('email');
  });

  it('closes the sockets of a session at sign-out', async () => {
    const { a } = await pair();
    await a.client.post('/api/auth/signout');
    await a.ws.waitClosed();
    expect(a.ws.closed?.code).toBe(CLOSE.sessionEnded);
    const stale = await WsTestClient.open(t, a.client.cookie);
    await stale.waitClosed();
    expect(stale.closed?.code).toBe(CLOSE.unauthenticated);
  });
});

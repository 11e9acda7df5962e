/**
 * A socket the server has closed can do nothing more. Each revocation path with a raw
 * client that ignores the close frame and keeps sending: nothing it sends afterwards is
 * handled, stored or delivered, and the server cuts the TCP connection within the grace.
 */
import { randomUUID } from 'node:crypto';
import { CLOSE } from '@app/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authOf, changePasswordBody } from '../test/accounts.ts';
import { inconsistencies } from '../test/consistency.ts';
import {
  ENGINES,
  LOOSE_LIMITS,
  signInWith,
  signUp,
  startEngineServer,
  type TestServer,
  verifyEmail,
} from '../test/harness.ts';
import { RawWsClient } from '../test/raw-ws.ts';
import { sampleSealed } from '../test/store-keys.ts';
import { WsTestClient } from '../test/ws-client.ts';
import { CLOSE_GRACE_MS } from './realtime.ts';

const HELLO_TIMEOUT_MS = 400;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(ENGINES)('revoked sockets on $name', ({ url }) => {
  let t: TestServer;
  let admin: Awaited<ReturnType<typeof signUp>>;

  beforeAll(async () => {
    t = await startEngineServer(url, 'revoke', {
      config: { rateLimits: { ...LOOSE_LIMITS, apiPerMinute: 100_000 } },
      env: { WS_HELLO_TIMEOUT_MS: String(HELLO_TIMEOUT_MS) },
    });
    admin = await signUp(t, { email: 'admin@example.com' });
    await verifyEmail(t, 'admin@example.com');
  });
  afterAll(async () => {
    await t?.close();
  });

  type Person = Awaited<ReturnType<typeof signUp>>;

  /**
   * What x's raw socket will send, sealed beforehand over a well-behaved socket of x's
   * (closed again) once the chat with y has its key: so every frame would be accepted.
   */
  async function sealedByX<T>(x: Person, y: Person, make: (ws: WsTestClient) => Promise<T>): Promise<T> {
    const ws = await WsTestClient.connect(t, x.client.cookie);
    await ws.sendMessage(y.user.id, 'the chat gets its key');
    const made = await make(ws);
    await ws.close();
    return made;
  }

  /** `n` sealed send bodies from x to y. */
  async function sends(ws: WsTestClient, to: string, n: number, label: string) {
    const bodies = [];
    for (let i = 0; i < n; i++) bodies.push(await ws.sealedSend(to, `${label} ${i} ${randomUUID()}`));
    return bodies;
  }

  /** x on a raw socket that will ignore the close frame, y on a well-behaved one. */
  async function setUp(x?: Person, y?: Person, beforeConnect?: () => Promise<void>) {
    x ??= await signUp(t);
    y ??= await signUp(t);
    const yWs = await WsTestClient.connect(t, y.client.cookie);
    const to = y.user.id;
    const [before, ...after] = await sealedByX(x, y, (ws) => sends(ws, to, 9, 'revoked'));
    await beforeConnect?.();
    const xRaw = await RawWsClient.connect(t, x.client.cookie);
    // The socket works before the revocation.
    xRaw.send({ t: 'send', id: 'ok', ...before });
    await xRaw.waitFor(() => xRaw.messages.some((m) => m.t === 'result' && m.id === 'ok'));
    return { x, y, yWs, xRaw, after };
  }

  /** How many stored messages hold this text (a ciphertext). */
  async function messagesWithText(text: string): Promise<number> {
    const rows = await t.server.ctx.chat.db.selectFrom('messages').select('id').where('text', '=', text).execute();
    return rows.length;
  }

  /** Ignores the close frame, keeps writing, and checks that none of it mattered. */
  async function expectIgnored(s: Awaited<ReturnType<typeof setUp>>, code: number): Promise<void> {
    const { xRaw, y, yWs } = s;
    await xRaw.waitFor(() => xRaw.closeFrame !== null);
    expect(xRaw.closeFrame?.code).toBe(code);
    const chatId = [s.x.user.id, y.user.id].sort().join('_');
    for (let i = 0; i < 8 && xRaw.endedAt === null; i++) {
      xRaw.send({ t: 'send', id: `late${i}`, ...s.after[i] });
      xRaw.send({ t: 'typing', to: y.user.id, typing: true });
      xRaw.send({ t: 'chatFlags', id: `flags${i}`, peerId: y.user.id, archived: true });
      xRaw.send({ t: 'chats', id: `chats${i}` });
      await sleep(40);
    }
    await xRaw.waitEnded(CLOSE_GRACE_MS + 2000);
    expect((xRaw.endedAt as number) - (xRaw.closeFrame?.at as number)).toBeLessThan(CLOSE_GRACE_MS + 1000);
    // Not one of those frames was answered, stored or delivered.
    expect(xRaw.messages.filter((m) => m.t === 'result' || m.t === 'error')).toEqual([
      expect.objectContaining({ t: 'result', id: 'ok' }),
    ]);
    await yWs.request('chats');
    expect(yWs.frames.filter((f) => f.t === 'typing')).toEqual([]);
    const lateIds = s.after.map((b) => b.msgId);
    expect(yWs.updates().filter((u) => u.update.kind === 'message' && lateIds.includes(u.update.message.id))).toEqual(
      [],
    );
    for (const late of s.after) expect(await messagesWithText(late.ct)).toBe(0);
    const summary = await t.server.ctx.chat.db
      .selectFrom('user_chats')
      .select('archived')
      .where('user_id', '=', s.x.user.id)
      .where('chat_id', '=', chatId)
      .executeTakeFirst();
    expect(summary?.archived ?? 0).toBe(0);
    expect(await inconsistencies(t.server.ctx.chat.db)).toEqual({});
    await yWs.close();
  }

  it('block: the blocked user’s socket handles nothing more', async () => {
    const s = await setUp();
    const res = await admin.client.request('PATCH', `/api/admin/users/${s.x.user.id}`, { blocked: true });
    expect(res.status).toBe(200);
    await expectIgnored(s, CLOSE.blocked);
  });

  it('sign-out: the session’s socket handles nothing more', async () => {
    const s = await setUp();
    expect((await s.x.client.post('/api/auth/signout')).status).toBe(204);
    await expectIgnored(s, CLOSE.sessionEnded);
  });

  it('password change: the other sessions’ sockets handle nothing more', async () => {
    const s = await setUp();
    const other = t.client();
    expect((await signInWith(other, s.x.input.email, s.x.input.password)).status).toBe(200);
    const { body } = await changePasswordBody(
      other,
      s.x.user.id,
      s.x.secrets.contents,
      s.x.input.password,
      'another456',
    );
    const res = await other.post('/api/account/password', body);
    expect(res.status).toBe(200);
    await expectIgnored(s, CLOSE.sessionEnded);
  });

  it('account deletion: the socket handles nothing more and nothing of the account is left', async () => {
    const s = await setUp();
    expect((await s.x.client.del('/api/account', { auth: await authOf(s.x.client, s.x.input.password) })).status).toBe(
      204,
    );
    await expectIgnored(s, CLOSE.sessionEnded);
    expect(await t.server.ctx.store.userById(s.x.user.id)).toBeNull();
  });

  it('session expiry: the socket closes when its session ends', async () => {
    const x = await signUp(t);
    let endsAt = 0;
    const s = await setUp(x, undefined, async () => {
      endsAt = Date.now() + 700;
      await t.server.ctx.chat.db
        .updateTable('sessions')
        .set({ expires_at: endsAt })
        .where('user_id', '=', x.user.id)
        .execute();
    });
    const { xRaw } = s;
    await xRaw.waitFor(() => xRaw.closeFrame !== null, 3000);
    expect(xRaw.closeFrame?.at).toBeGreaterThanOrEqual(endsAt);
    expect(xRaw.closeFrame?.at).toBeLessThan(endsAt + 1000);
    await expectIgnored(s, CLOSE.sessionEnded);
  });

  it('a send is refused in its own transaction once the session is gone, before the socket hears', async () => {
    const x = await signUp(t);
    const y = await signUp(t);
    const tokenHash = t.server.ctx.sessions.hash(x.client.cookie as string);
    const { chat, store } = t.server.ctx;
    const live = await sampleSealed(chat.db, x.user.id, y.user.id, 1);
    const ok = await chat.send(x.user.id, y.user.id, randomUUID(), live, Date.now(), tokenHash);
    expect('message' in ok).toBe(true);
    await store.deleteSession(tokenHash);
    const ended = await sampleSealed(chat.db, x.user.id, y.user.id, 2);
    await expect(chat.send(x.user.id, y.user.id, randomUUID(), ended, Date.now(), tokenHash)).rejects.toMatchObject({
      code: 'forbidden',
    });
    await store.setFlags(y.user.id, { blocked: true });
    const blocked = await sampleSealed(chat.db, y.user.id, x.user.id, 3);
    await expect(chat.send(y.user.id, x.user.id, randomUUID(), blocked, Date.now())).rejects.toMatchObject({
      code: 'forbidden',
    });
    expect(await messagesWithText(ended.ct)).toBe(0);
    expect(await messagesWithText(blocked.ct)).toBe(0);
  });

  it('a session ended where this server was not told (the shell, a lost message): its next write closes the socket', async () => {
    for (const write of ['send', 'edit', 'read', 'chatFlags', 'notificationsSeen'] as const) {
      const x = await signUp(t);
      const y = await signUp(t);
      const chatId = [x.user.id, y.user.id].sort().join('_');
      const msgId = randomUUID();
      const sealed = await sealedByX(x, y, async (ws) => ({
        first: await ws.sealedSend(y.user.id, 'before the shell', msgId),
        send: await ws.sealedSend(y.user.id, 'after the shell'),
        edit: await ws.sealedEdit(chatId, msgId, 'after the shell', 1),
      }));
      const xRaw = await RawWsClient.connect(t, x.client.cookie);
      xRaw.send({ t: 'send', id: 'first', ...sealed.first });
      await xRaw.waitFor(() => xRaw.messages.some((m) => m.t === 'result' && m.id === 'first'));
      // What `npm run admin -- reset-password` does: the sessions go, no process hears of it.
      await t.server.ctx.store.deleteUserSessions(x.user.id);
      const frames = {
        send: { t: 'send', id: 'w', ...sealed.send },
        edit: { t: 'edit', id: 'w', ...sealed.edit },
        read: { t: 'read', id: 'w', peerId: y.user.id },
        chatFlags: { t: 'chatFlags', id: 'w', peerId: y.user.id, archived: true },
        notificationsSeen: { t: 'notificationsSeen', id: 'w' },
      };
      xRaw.send(frames[write]);
      await xRaw.waitFor(() => xRaw.closeFrame !== null);
      expect(xRaw.closeFrame?.code, write).toBe(CLOSE.sessionEnded);
      await xRaw.waitEnded(CLOSE_GRACE_MS + 2000);
      expect(
        xRaw.messages.filter((m) => m.t === 'result' && m.id === 'w'),
        write,
      ).toEqual([]);
      expect(await messagesWithText(sealed.send.ct), write).toBe(0);
      expect(await messagesWithText(sealed.edit.ct), write).toBe(0);
      expect(await messagesWithText(sealed.first.ct), write).toBe(1);
    }
    const { chat } = t.server.ctx;
    const archived = await chat.db.selectFrom('user_chats').select('archived').where('archived', '=', 1).execute();
    expect(archived).toEqual([]);
  });

  it('the heartbeat’s session sweep closes a socket whose session ended silently, and nothing more reaches it', async () => {
    const x = await signUp(t);
    const y = await signUp(t);
    const xRaw = await RawWsClient.connect(t, x.client.cookie);
    const yWs = await WsTestClient.connect(t, y.client.cookie);
    await t.server.ctx.store.deleteUserSessions(x.user.id);
    await t.server.ctx.realtime.checkSessions();
    await xRaw.waitFor(() => xRaw.closeFrame !== null);
    expect(xRaw.closeFrame?.code).toBe(CLOSE.sessionEnded);
    await yWs.sendMessage(x.user.id, 'to a closed socket');
    await yWs.request('chats');
    expect(JSON.stringify(xRaw.messages)).not.toContain('to a closed socket');
    // A blocked account found the same way goes to /blocked.
    const z = await signUp(t);
    const zRaw = await RawWsClient.connect(t, z.client.cookie);
    await t.server.ctx.store.setFlags(z.user.id, { blocked: true });
    await t.server.ctx.realtime.checkSessions();
    await zRaw.waitFor(() => zRaw.closeFrame !== null);
    expect(zRaw.closeFrame?.code).toBe(CLOSE.blocked);
    await yWs.close();
  });

  it('an account deleted during a burst of its own sends leaves no message, summary or log of it', async () => {
    for (let round = 0; round < 3; round++) {
      const x = await signUp(t);
      const y = await signUp(t);
      const burst = await sealedByX(x, y, (ws) => sends(ws, y.user.id, 60, 'burst'));
      const xRaw = await RawWsClient.connect(t, x.client.cookie);
      for (let i = 0; i < 60; i++) xRaw.send({ t: 'send', id: `b${i}`, ...burst[i] });
      await sleep(round * 3);
      expect((await x.client.del('/api/account', { auth: await authOf(x.client, x.input.password) })).status).toBe(204);
      await xRaw.waitEnded(CLOSE_GRACE_MS + 2000);
      const left = await t.server.ctx.chat.db
        .selectFrom('messages')
        .select('id')
        .where('sender_id', '=', x.user.id)
        .execute();
      expect(left).toEqual([]);
      expect(await inconsistencies(t.server.ctx.chat.db)).toEqual({});
    }
  });

  it('a socket that never says hello is closed', async () => {
    const x = await signUp(t);
    const raw = await RawWsClient.open(t, x.client.cookie);
    const opened = Date.now();
    await raw.waitFor(() => raw.closeFrame !== null, 3000);
    expect(raw.closeFrame?.code).toBe(CLOSE.protocolError);
    expect((raw.closeFrame?.at as number) - opened).toBeLessThan(HELLO_TIMEOUT_MS + 500);
    raw.send({ t: 'ping' });
    await raw.waitEnded(CLOSE_GRACE_MS + 2000);
    expect(raw.messages).toEqual([]);
  });
});

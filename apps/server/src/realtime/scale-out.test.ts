/**
 * Several server processes on one PostgreSQL and one Redis (here: two servers in this
 * process, each with its own connections, as two processes would have): users on
 * different servers chat, see each other's presence and typing, and admin actions
 * reach sockets on the other server. Needs TEST_DATABASE_URL and TEST_REDIS_URL.
 *
 * Also, on any engine: a socket that is handed an update beyond a gap in its seq fills
 * the gap from the database first.
 */
import { randomUUID } from 'node:crypto';
import { API, CLOSE, type DownFrame, sessionsResponseSchema } from '@app/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LOOSE_LIMITS,
  SCALE_OUT_SKIP,
  signInWith,
  signUp,
  startServerPair,
  type TestServer,
  useTestServer,
} from '../test/harness.ts';
import { METRICS_TEST_TOKEN, sample, scrape } from '../test/metrics-scrape.ts';
import { WsTestClient } from '../test/ws-client.ts';
import { GAP_WAIT_MS } from './update-stream.ts';

if (SCALE_OUT_SKIP) console.warn(`scale-out.test.ts skipped: ${SCALE_OUT_SKIP}`);

type Update = Extract<DownFrame, { t: 'update' }>;

function messages(c: WsTestClient, id: string): Update[] {
  return c.updates().filter((u) => u.update.kind === 'message' && u.update.message.id === id);
}

describe.skipIf(Boolean(SCALE_OUT_SKIP))('two servers on PostgreSQL and Redis', () => {
  let a: TestServer;
  let b: TestServer;
  let close: () => Promise<void>;

  beforeAll(async () => {
    // No SESSION_SECRET: each server has its own data dir, so they must agree on the
    // secret through the database.
    ({ a, b, close } = await startServerPair('scale', {
      config: { rateLimits: LOOSE_LIMITS },
      env: { METRICS_TOKEN: METRICS_TEST_TOKEN },
    }));
  });
  afterAll(async () => {
    await close?.();
  });

  it('a session from one server works on the other; messages, receipts and typing cross live', async () => {
    const alice = await signUp(a);
    const bob = await signUp(b);
    // Alice's cookie was issued by A; her socket is on B, Bob's on A.
    const aliceWs = await WsTestClient.connect(b, alice.client.cookie);
    const bobWs = await WsTestClient.connect(a, bob.client.cookie);

    const m = await aliceWs.sendMessage(bob.user.id, 'hello across processes');
    await bobWs.waitFor(() => messages(bobWs, m.id).length > 0);
    const got = messages(bobWs, m.id)[0]?.update;
    expect(got).toMatchObject({ kind: 'message' });
    expect(got?.kind === 'message' && (await bobWs.textOf(got.message))).toBe('hello across processes');

    await bobWs.request('read', { peerId: alice.user.id });
    await aliceWs.waitFor(() =>
      aliceWs
        .updates()
        .some((u) => u.update.kind === 'message' && u.update.message.id === m.id && u.update.message.status === 'read'),
    );

    aliceWs.sendRaw({ t: 'typing', to: bob.user.id, typing: true });
    await bobWs.waitFor(() => bobWs.frames.some((f) => f.t === 'typing' && f.from === alice.user.id && f.typing));

    // Many in a row arrive in order, each once.
    const texts = Array.from({ length: 30 }, (_, i) => `burst ${i}`);
    const sent: string[] = [];
    for (const text of texts) sent.push((await aliceWs.sendMessage(bob.user.id, text)).id);
    await bobWs.waitFor(() => messages(bobWs, sent.at(-1) as string).length > 0);
    const burst = bobWs
      .updates()
      .flatMap((u) => (u.update.kind === 'message' && sent.includes(u.update.message.id) ? [u.update.message] : []));
    expect(burst.map((x) => x.id)).toEqual(sent);
    expect(await Promise.all(burst.map((x) => bobWs.textOf(x)))).toEqual(texts);
    // Bob's server timed each of Alice's updates on its way through Redis.
    expect(sample((await scrape(a)).text, 'parley_update_lag_seconds_count')).toBeGreaterThanOrEqual(texts.length);
    const seqs = bobWs.updates().map((u) => u.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));

    await aliceWs.close();
    await bobWs.close();
  });

  it('a reply, a forward and a reaction cross live, sealed, between the servers', async () => {
    const alice = await signUp(a);
    const bob = await signUp(b);
    const aliceWs = await WsTestClient.connect(a, alice.client.cookie);
    const bobWs = await WsTestClient.connect(b, bob.client.cookie);
    const first = await aliceWs.sendMessage(bob.user.id, 'Are we on for Friday?');
    const reply = await bobWs.sendMessage(alice.user.id, {
      text: 'Yes',
      reply: { msgId: first.id, senderId: alice.user.id, excerpt: 'Are we on for Friday?' },
    });
    await aliceWs.waitFor(() => messages(aliceWs, reply.id).length > 0);
    const got = messages(aliceWs, reply.id)[0]?.update;
    if (got?.kind !== 'message') throw new Error('no reply');
    expect(
      await aliceWs.sealerOf().openContent({ ...got.message, ct: got.message.ct as string }, aliceWs),
    ).toMatchObject({
      text: 'Yes',
      reply: { msgId: first.id },
    });
    const fwd = await aliceWs.sendMessage(bob.user.id, { text: 'Yes', forwarded: true });
    await bobWs.waitFor(() => messages(bobWs, fwd.id).length > 0);

    const ct = await aliceWs.sealerOf().sealReaction(first.chatId, reply.id, '👍', aliceWs);
    await aliceWs.request('react', { chatId: first.chatId, msgId: reply.id, ct });
    await bobWs.waitFor(() => bobWs.updates().some((u) => u.update.kind === 'reaction' && u.update.reaction.ct === ct));
    const [r] = bobWs.updates().flatMap((u) => (u.update.kind === 'reaction' ? [u.update.reaction] : []));
    expect(await bobWs.sealerOf().openReaction({ ...r, ct } as never, bobWs)).toBe('👍');
    // A reaction to Bob's message is activity for him, on his server too.
    const withChat = bobWs.updates().find((u) => u.update.kind === 'reaction' && u.update.reaction.ct === ct);
    expect(withChat?.update.kind === 'reaction' && withChat.update.chat?.markedUnread).toBe(true);
    await aliceWs.close();
    await bobWs.close();
  });

  it('presence: online while a socket is open on either server, offline with lastSeen after the last', async () => {
    const alice = await signUp(a);
    const bob = await signUp(b);
    const bobWs = await WsTestClient.connect(b, bob.client.cookie);
    const first = await bobWs.request('watch', { userIds: [alice.user.id] });
    expect(first.presence[0]?.online).toBe(false);

    const onA = await WsTestClient.connect(a, alice.client.cookie);
    await bobWs.waitFor(() =>
      bobWs.frames.some((f) => f.t === 'presence' && f.presence.userId === alice.user.id && f.presence.online),
    );
    const onB = await WsTestClient.connect(b, alice.client.cookie);
    const before = bobWs.frames.length;
    await onA.close();
    // Still online (her tab on B): the user list says so, and no offline frame came.
    const seen = await bobWs.request('users', { query: alice.input.username });
    expect(seen.users.find((u) => u.id === alice.user.id)?.online).toBe(true);
    expect(
      bobWs.frames
        .slice(before)
        .some((f) => f.t === 'presence' && f.presence.userId === alice.user.id && !f.presence.online),
    ).toBe(false);

    await onB.close();
    await bobWs.waitFor(() =>
      bobWs.frames.some(
        (f) =>
          f.t === 'presence' &&
          f.presence.userId === alice.user.id &&
          !f.presence.online &&
          f.presence.lastSeen !== null,
      ),
    );
    await bobWs.close();
  });

  it('admin actions on one server take effect on the other: block closes sockets, broadcasts arrive', async () => {
    const admin = await signUp(a, { email: 'admin@example.com' });
    await a.server.ctx.store.setEmailVerified(admin.user.id, 'admin@example.com');
    const carol = await signUp(b);
    const dave = await signUp(b);
    const carolWs = await WsTestClient.connect(b, carol.client.cookie);
    const daveWs = await WsTestClient.connect(b, dave.client.cookie);

    const sent = await admin.client.post('/api/admin/notifications', { message: `news ${randomUUID()}` });
    expect(sent.status).toBe(201);
    await daveWs.waitFor(() =>
      daveWs.frames.some(
        (f) =>
          f.t === 'global' && f.event.kind === 'notification' && f.event.notification.id === sent.body.notification.id,
      ),
    );

    const blocked = await admin.client.request('PATCH', `/api/admin/users/${carol.user.id}`, { blocked: true });
    expect(blocked.status).toBe(200);
    await carolWs.waitClosed();
    expect(carolWs.closed?.code).toBe(CLOSE.blocked);
    expect(daveWs.closed).toBeNull();
    await daveWs.close();
  });

  it("signing out another browser on one server closes that browser's socket on the other", async () => {
    const erin = await signUp(a);
    const laptop = b.client();
    expect((await signInWith(laptop, erin.input.email, erin.input.password)).status).toBe(200);
    const laptopWs = await WsTestClient.connect(b, laptop.cookie);
    const phoneWs = await WsTestClient.connect(b, erin.client.cookie);
    const { sessions } = sessionsResponseSchema.parse((await erin.client.get(API.sessions)).body);
    const other = sessions.find((s) => !s.current);
    expect((await erin.client.del(`${API.sessions}/${other?.id}`)).status).toBe(204);
    await laptopWs.waitClosed();
    expect(laptopWs.closed?.code).toBe(CLOSE.sessionEnded);
    expect(phoneWs.closed).toBeNull();
    await phoneWs.close();
  });
});

describe('gap in the update log', () => {
  const t = useTestServer({ config: { rateLimits: LOOSE_LIMITS }, env: { METRICS_TOKEN: METRICS_TEST_TOKEN } });

  it('a socket handed an update beyond a gap sends the missing ones first, in order, once', async () => {
    const alice = await signUp(t);
    const ws = await WsTestClient.connect(t, alice.client.cookie);
    const { social, realtime } = t.server.ctx;
    const now = Date.now();
    // Three logged changes; only the last is published (as if the others were lost or late).
    await social.setPrivacy(alice.user.id, { readReceipts: false, lastSeen: true, requireRequest: false }, now);
    await social.setPrivacy(alice.user.id, { readReceipts: false, lastSeen: false, requireRequest: false }, now);
    const last = await social.setPrivacy(
      alice.user.id,
      { readReceipts: true, lastSeen: false, requireRequest: true },
      now,
    );
    realtime.publish(last);
    await ws.waitFor(() => ws.updates().length >= 3);
    const seqs = ws.updates().map((u) => u.seq);
    const start = ws.welcome?.seq ?? 0;
    expect(seqs).toEqual([start + 1, start + 2, start + 3]);
    // All three were read from the database (the published one was held back meanwhile).
    expect(sample((await scrape(t)).text, 'parley_update_catchup_entries_total')).toBe(3);
    // The late ones arriving now change nothing.
    realtime.publish(last);
    await ws.request('chats');
    expect(ws.updates().length).toBe(3);
    await ws.close();
  });

  it('an update that overtook another waits for it from the hub: in order, nothing read from the log', async () => {
    const alice = await signUp(t);
    const ws = await WsTestClient.connect(t, alice.client.cookie);
    const { social, realtime } = t.server.ctx;
    const before = sample((await scrape(t)).text, 'parley_update_catchup_entries_total') ?? 0;
    const now = Date.now();
    const first = await social.setPrivacy(
      alice.user.id,
      { readReceipts: false, lastSeen: true, requireRequest: false },
      now,
    );
    const second = await social.setPrivacy(
      alice.user.id,
      { readReceipts: true, lastSeen: true, requireRequest: false },
      now,
    );
    // The later one first (as a process's own update overtakes another's through Redis),
    // the earlier one well within GAP_WAIT_MS.
    realtime.publish(second);
    realtime.publish(first);
    await ws.waitFor(() => ws.updates().length >= 2);
    const start = ws.welcome?.seq ?? 0;
    expect(ws.updates().map((u) => u.seq)).toEqual([start + 1, start + 2]);
    await new Promise((r) => setTimeout(r, GAP_WAIT_MS * 2));
    expect(sample((await scrape(t)).text, 'parley_update_catchup_entries_total') ?? 0).toBe(before);
    expect(ws.updates().length).toBe(2);
    await ws.close();
  });
});

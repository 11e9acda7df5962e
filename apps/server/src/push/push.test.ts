/**
 * Web Push against a real server and a push service on loopback that checks VAPID and
 * decrypts like a browser (src/test/push-endpoint.ts): who may subscribe to what, a push
 * for a message while no tab is open and none while one is, nothing of a locked chat, none
 * for a muted one, one for a reaction to the user's own message, a
 * subscription gone at the push service removed, and one that ends with its session.
 */
import { API, pushPayloadSchema, pushStateSchema } from '@app/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PushStore, SUBSCRIBER_CACHE_MS } from '../storage/accounts/push-store.ts';
import { expectError, LOOSE_LIMITS, signUp, startTestServer, type TestServer } from '../test/harness.ts';
import { PUSH_ENDPOINT_CERT, type PushEndpoint, startPushEndpoint } from '../test/push-endpoint.ts';
import { WsTestClient } from '../test/ws-client.ts';

let t: TestServer;
let push: PushEndpoint;

beforeAll(async () => {
  push = await startPushEndpoint();
  t = await startTestServer({
    config: { rateLimits: LOOSE_LIMITS, pushCa: PUSH_ENDPOINT_CERT },
    env: { PUSH_ENDPOINTS: `${push.origin}/push/` },
  });
});

afterAll(async () => {
  await t?.close();
  await push?.close();
});

const settled = () => t.server.ctx.push.sender.idle();

async function subscribed(client: Awaited<ReturnType<typeof signUp>>['client']) {
  const sub = push.subscribe();
  const res = await client.request('PUT', API.push, sub);
  expect(res.status).toBe(200);
  expect(pushStateSchema.parse(res.body).subscribed).toBe(true);
  return sub;
}

describe('web push', () => {
  it('gives the VAPID key; refuses strangers, other push services and malformed subscriptions', async () => {
    const a = await signUp(t);
    const state = pushStateSchema.parse((await a.client.get(API.push)).body);
    expect(state.subscribed).toBe(false);
    expect(Buffer.from(state.publicKey, 'base64url')).toHaveLength(65);
    const sub = push.subscribe();
    expectError(await t.client().request('PUT', API.push, sub), 401, 'unauthenticated');
    for (const endpoint of ['https://evil.example/push/x', 'http://127.0.0.1:6379/', `${push.origin}/admin`]) {
      expectError(await a.client.request('PUT', API.push, { ...sub, endpoint }), 400, 'invalid_input');
    }
    for (const keys of [{}, { ...sub.keys, p256dh: 'short' }, { ...sub.keys, auth: '!!!!!!!!!!!!!!!!!!!!!!' }]) {
      expectError(await a.client.request('PUT', API.push, { ...sub, keys }), 400, 'invalid_input');
    }
    expect(await t.server.ctx.push.store.forUser(a.user.id)).toEqual([]);
  });

  it('pushes "from @alice" while no tab of bob is open, signed by the server, without the text', async () => {
    const alice = await signUp(t);
    const bob = await signUp(t);
    const sub = await subscribed(bob.client);
    const a = await WsTestClient.connect(t, alice.client.cookie);
    const m = await a.sendMessage(bob.user.id, 'meet at noon');
    await settled();
    const got = push.received.filter((p) => sub.endpoint.endsWith(p.path));
    expect(got).toHaveLength(1);
    const [p] = got;
    expect(pushPayloadSchema.parse(JSON.parse(p?.text ?? ''))).toEqual({
      t: 'message',
      peerId: alice.user.id,
      from: `@${alice.user.username}`,
    });
    expect(p?.text).not.toContain(m.ct?.slice(0, 40));
    expect(p?.vapidKey).toBe(pushStateSchema.parse((await bob.client.get(API.push)).body).publicKey);
    expect(p?.claims.sub).toBe('mailto:admin@example.com');
    expect(p?.headers).toMatchObject({ urgency: 'high', 'content-encoding': 'aes128gcm' });
    expect(p?.headers.topic).toMatch(/^[A-Za-z0-9_-]{1,32}$/);
    expect(Number(p?.headers.ttl)).toBeGreaterThan(0);
    expect(push.refused).toEqual([]);

    // With a tab open, the tab tells bob itself: no push.
    const b = await WsTestClient.connect(t, bob.client.cookie);
    await a.sendMessage(bob.user.id, 'still there?');
    await settled();
    expect(push.received.filter((x) => sub.endpoint.endsWith(x.path))).toHaveLength(1);
    await b.close();
    await a.close();
  });

  it('names no one for a locked chat', async () => {
    const alice = await signUp(t);
    const bob = await signUp(t);
    const a = await WsTestClient.connect(t, alice.client.cookie);
    await a.sendMessage(bob.user.id, 'hi');
    expect((await bob.client.request('PUT', API.pin, { pin: '123456' })).status).toBe(200);
    const b = await WsTestClient.connect(t, bob.client.cookie);
    await b.request('chatFlags', { peerId: alice.user.id, locked: true });
    await b.close();
    const sub = await subscribed(bob.client);
    await a.sendMessage(bob.user.id, 'secret plans');
    await settled();
    const [p] = push.received.filter((x) => sub.endpoint.endsWith(x.path));
    expect(JSON.parse(p?.text ?? '')).toEqual({ t: 'message', peerId: alice.user.id, from: null });
    await a.close();
  });

  it('pushes nothing for a muted chat, and again once it is unmuted', async () => {
    const alice = await signUp(t);
    const bob = await signUp(t);
    const a = await WsTestClient.connect(t, alice.client.cookie);
    await a.sendMessage(bob.user.id, 'hi');
    const b = await WsTestClient.connect(t, bob.client.cookie);
    await b.request('chatFlags', { peerId: alice.user.id, mute: '8h' });
    await b.close();
    const sub = await subscribed(bob.client);
    const pushes = () => push.received.filter((x) => sub.endpoint.endsWith(x.path));
    await a.sendMessage(bob.user.id, 'muted');
    await settled();
    expect(pushes()).toHaveLength(0);
    const b2 = await WsTestClient.connect(t, bob.client.cookie);
    await b2.request('chatFlags', { peerId: alice.user.id, mute: 'off' });
    await b2.close();
    await a.sendMessage(bob.user.id, 'unmuted');
    await settled();
    expect(pushes()).toHaveLength(1);
    await a.close();
  });

  it('pushes "@alice reacted" for a reaction to bob’s own message only, naming no one in a locked chat', async () => {
    const alice = await signUp(t);
    const bob = await signUp(t);
    const a = await WsTestClient.connect(t, alice.client.cookie);
    const b = await WsTestClient.connect(t, bob.client.cookie);
    const hers = await a.sendMessage(bob.user.id, 'lunch?');
    const his = await b.sendMessage(alice.user.id, 'yes');
    await b.close();
    const sub = await subscribed(bob.client);
    const pushes = () => push.received.filter((x) => sub.endpoint.endsWith(x.path)).map((x) => JSON.parse(x.text));
    const react = async (msgId: string) =>
      a.request('react', {
        chatId: his.chatId,
        msgId,
        ct: await a.sealerOf().sealReaction(his.chatId, msgId, '👍', a),
      });
    // To her own message: not bob's news.
    await react(hers.id);
    await settled();
    expect(pushes()).toEqual([]);
    await react(his.id);
    await settled();
    expect(pushes()).toEqual([{ t: 'reaction', peerId: alice.user.id, from: `@${alice.user.username}` }]);
    await a.close();
  });

  it('drops a subscription the push service says is gone, and one whose session ended', async () => {
    const alice = await signUp(t);
    const bob = await signUp(t);
    const gone = await subscribed(bob.client);
    push.markGone(gone.endpoint);
    const a = await WsTestClient.connect(t, alice.client.cookie);
    await a.sendMessage(bob.user.id, 'anyone?');
    await settled();
    expect(await t.server.ctx.push.store.forUser(bob.user.id)).toEqual([]);
    expect(pushStateSchema.parse((await bob.client.get(API.push)).body).subscribed).toBe(false);

    await subscribed(bob.client);
    expect(await t.server.ctx.push.store.forUser(bob.user.id)).toHaveLength(1);
    expect((await bob.client.post(API.signOut, {})).status).toBeLessThan(300);
    expect(await t.server.ctx.push.store.forUser(bob.user.id)).toEqual([]);
    await a.close();
  });

  it('unsubscribes on DELETE, only this browser', async () => {
    const bob = await signUp(t);
    await subscribed(bob.client);
    const res = await bob.client.del(API.push, {});
    expect(pushStateSchema.parse(res.body).subscribed).toBe(false);
    expect(await t.server.ctx.push.store.forUser(bob.user.id)).toEqual([]);
  });

  it('knows without a query per message who has no subscription; learns of one made elsewhere within the cache time', async () => {
    const carol = await signUp(t);
    const store = t.server.ctx.push.store;
    const now = Date.now();
    expect(await store.hasSubscriptions(carol.user.id, now)).toBe(false);
    // A subscription another process stored: this one goes on trusting its answer for a while.
    const session = await store.db
      .selectFrom('sessions')
      .select('token_hash')
      .where('user_id', '=', carol.user.id)
      .executeTakeFirstOrThrow();
    await new PushStore(store.db).subscribe(carol.user.id, session.token_hash, push.subscribe(), now);
    expect(await store.hasSubscriptions(carol.user.id, now + 1)).toBe(false);
    expect(await store.hasSubscriptions(carol.user.id, now + SUBSCRIBER_CACHE_MS)).toBe(true);

    // One made through this process counts at once.
    const dave = await signUp(t);
    expect(await store.hasSubscriptions(dave.user.id)).toBe(false);
    await subscribed(dave.client);
    expect(await store.hasSubscriptions(dave.user.id)).toBe(true);
  });
});

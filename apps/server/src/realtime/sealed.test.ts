/**
 * Sealed messages against a real server (docs/e2ee.md): a chat's keys by epoch, made
 * by the participants with real cryptography (packages/e2ee), and the server's rules that
 * keep every stored message openable by its recipient: the first message brings epoch 1;
 * a send under no key, a wrong one, or one older than either person's keys is refused
 * `rekey_required`; two first messages at the same moment store one key and the loser
 * re-seals (`conflict`); nobody seals to someone without keys (`recipient_no_keys`).
 * Runs on SQLite, and on PostgreSQL too when TEST_DATABASE_URL is set.
 */
import { randomUUID } from 'node:crypto';
import { createChatKey } from '@app/e2ee';
import { chatIdOf } from '@app/protocol';
import { sampleChatKey, sampleCiphertext } from '@app/protocol/test/samples';
import { describe, expect, it } from 'vitest';
import { ownKeysOf, putNewKeys } from '../test/accounts.ts';
import { ENGINES, LOOSE_LIMITS, useTestServer } from '../test/harness.ts';
import { connectedPerson, type Person } from '../test/people.ts';
import type { WsTestClient } from '../test/ws-client.ts';

/** The error code a request is refused with. */
async function refusal(ws: WsTestClient, t: string, body: Record<string, unknown>): Promise<string> {
  return (await ws.requestError(t, body)).code;
}

describe.each(ENGINES)('sealed messages on $name', ({ url }) => {
  const t = useTestServer({ engine: url, tag: 'sealed', config: { rateLimits: LOOSE_LIMITS } });
  const person = () => connectedPerson(t);
  const chatKeysOf = async (p: Person, chatId: string) => (await p.ws.request('chatKeys', { chatId })).chatKeys;

  it('the first message brings epoch 1, made by its sender; the peer opens it; later ones bring none', async () => {
    const a = await person();
    const b = await person();
    const chatId = chatIdOf(a.user.id, b.user.id);
    const first = await a.ws.sealedSend(b.user.id, 'hello, sealed');
    expect(first.chatKey).toMatchObject({ chatId, epoch: 1, creatorId: a.user.id });
    expect(first.chatKey?.seals.map((s) => [s.userId, s.ukEpoch])).toEqual(
      [a.user.id, b.user.id].sort().map((id) => [id, 1]),
    );
    expect(await a.ws.request('send', first)).toMatchObject({
      message: { id: first.msgId, ct: first.ct, rev: 0, legacyText: null },
    });
    // Both get the envelope as it was sent, and the peer opens the message with it.
    for (const p of [a, b]) expect(await chatKeysOf(p, chatId)).toEqual([first.chatKey]);
    const [stored] = (await b.ws.request('history', { peerId: a.user.id })).messages;
    expect(stored && (await b.ws.textOf(stored))).toBe('hello, sealed');

    const second = await b.ws.sealedSend(a.user.id, 'and back');
    expect(second.chatKey).toBeUndefined();
    const reply = await b.ws.sendMessage(a.user.id, 'and back');
    expect(await a.ws.textOf(reply)).toBe('and back');
    expect((await chatKeysOf(a, chatId)).map((k) => k.epoch)).toEqual([1]);
  });

  it('refuses a send under no key, a made-up one, or one that is not the next epoch sealed to both as they are', async () => {
    const a = await person();
    const b = await person();
    const c = await person();
    const chatId = chatIdOf(a.user.id, b.user.id);
    const [ka, kb, kc] = await a.sealer.keysOf([a.user.id, b.user.id, c.user.id], a.ws);
    if (!ka || !kb || !kc) throw new Error('no keys');
    const me = await a.sealer.accountKeys();
    const send = (ct: string, chatKey?: unknown) =>
      refusal(a.ws, 'send', { to: b.user.id, msgId: randomUUID(), ct, ...(chatKey ? { chatKey } : {}) });
    const { envelope } = await createChatKey(me, chatId, 1, [ka, kb]);

    // No key at all.
    expect(await send(sampleCiphertext(1))).toBe('rekey_required');
    // Not epoch 1.
    expect(await send(sampleCiphertext(2), (await createChatKey(me, chatId, 2, [ka, kb])).envelope)).toBe(
      'rekey_required',
    );
    // The message sealed under another epoch than the key it brings.
    expect(await send(sampleCiphertext(2), envelope)).toBe('rekey_required');
    // Made by the peer (the sender brings only keys of their own).
    const bMade = (await createChatKey(await b.sealer.accountKeys(), chatId, 1, [ka, kb])).envelope;
    expect(await send(sampleCiphertext(1), bMade)).toBe('rekey_required');
    // Another chat's key, or this chat's sealed to someone else.
    const other = (await createChatKey(me, chatIdOf(a.user.id, c.user.id), 1, [ka, kc])).envelope;
    expect(await send(sampleCiphertext(1), other)).toBe('rekey_required');
    expect(await send(sampleCiphertext(1), { ...other, chatId })).toBe('rekey_required');
    // Sealed to encryption-key epochs the people do not have.
    const stale = { ...envelope, seals: envelope.seals.map((s) => ({ ...s, ukEpoch: s.ukEpoch + 1 })) };
    expect(await send(sampleCiphertext(1), stale)).toBe('rekey_required');
    // A new message is revision 0.
    expect(await send(sampleCiphertext(1, 1), envelope)).toBe('invalid_frame');
    // Nothing of it was stored.
    expect(await chatKeysOf(a, chatId)).toEqual([]);
    expect((await a.ws.request('history', { peerId: b.user.id })).messages).toEqual([]);
    expect((await a.ws.request('chats')).chats).toEqual([]);

    // The right one goes through, and from then on a key for epoch 1 is one too many.
    const ok = await a.ws.sendMessage(b.user.id, 'at last');
    expect(await b.ws.textOf(ok)).toBe('at last');
    expect(await send(sampleCiphertext(1), (await createChatKey(me, chatId, 1, [ka, kb])).envelope)).toBe('conflict');
    expect(await send(sampleCiphertext(3), (await createChatKey(me, chatId, 3, [ka, kb])).envelope)).toBe(
      'rekey_required',
    );
    expect(await send(sampleCiphertext(2))).toBe('rekey_required');
    expect((await chatKeysOf(b, chatId)).map((k) => k.creatorId)).toEqual([a.user.id]);
  });

  it('two first messages at the same moment: one key is stored, the other sender re-seals under it', async () => {
    for (let round = 0; round < 3; round++) {
      const a = await person();
      const b = await person();
      const chatId = chatIdOf(a.user.id, b.user.id);
      const fromA = await a.ws.sealedSend(b.user.id, 'hi from a');
      const fromB = await b.ws.sealedSend(a.user.id, 'hi from b');
      expect([fromA.chatKey?.epoch, fromB.chatKey?.epoch]).toEqual([1, 1]);
      const outcomes = await Promise.allSettled([a.ws.request('send', fromA), b.ws.request('send', fromB)]);
      const won = outcomes.map((o) => o.status === 'fulfilled');
      expect(won.filter(Boolean)).toHaveLength(1);
      const lost = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      expect(lost.reason.frame.code).toBe('conflict');
      const [winner, loser, loserBody] = won[0] ? [a, b, fromB] : [b, a, fromA];
      const keys = await chatKeysOf(a, chatId);
      expect(keys.map((k) => [k.epoch, k.creatorId])).toEqual([[1, winner.user.id]]);
      // The loser opens the winner's key and seals the same message (same id) under it.
      const again = await loser.ws.sealedSend(winner.user.id, loser === a ? 'hi from a' : 'hi from b', loserBody.msgId);
      expect(again.chatKey).toBeUndefined();
      expect(await loser.ws.request('send', again)).toMatchObject({ message: { id: loserBody.msgId } });
      const history = (await a.ws.request('history', { peerId: b.user.id })).messages;
      expect(history).toHaveLength(2);
      for (const p of [a, b]) {
        expect((await Promise.all(history.map((m) => p.ws.textOf(m)))).sort()).toEqual(['hi from a', 'hi from b']);
      }
    }
  });

  it('after either side’s keys change, the next send makes the next key; old messages still open', async () => {
    const a = await person();
    const b = await person();
    const chatId = chatIdOf(a.user.id, b.user.id);
    const m1 = await a.ws.sendMessage(b.user.id, 'under epoch 1');

    // b rotates their encryption key (same identity): epoch 1 is sealed to b's old key.
    b.sealer.setContents((await putNewKeys(b.client, b.user.id, b.secrets, 'rotate')).contents);
    expect((await ownKeysOf(b.client)).publicKeys.ukEpoch).toBe(2);
    expect(await refusal(a.ws, 'send', await a.ws.sealedSend(b.user.id, 'still epoch 1?'))).toBe('rekey_required');
    expect(await refusal(b.ws, 'send', await b.ws.sealedSend(a.user.id, 'still epoch 1?'))).toBe('rekey_required');
    await b.sealer.rekey(a.user.id, b.ws);
    const next = await b.ws.sealedSend(a.user.id, 'under epoch 2');
    expect(next.chatKey).toMatchObject({ epoch: 2, creatorId: b.user.id });
    expect(next.chatKey?.seals.find((s) => s.userId === b.user.id)?.ukEpoch).toBe(2);
    const m2 = await b.ws.request('send', next);
    if (!('message' in m2)) throw new Error('sent as a request');
    // a needs no key of their own: the newest is sealed to both as they are now.
    await a.sealer.rekey(b.user.id, a.ws);
    const m3 = await a.ws.sendMessage(b.user.id, 'also under epoch 2');
    expect((await chatKeysOf(a, chatId)).map((k) => k.epoch)).toEqual([1, 2]);
    const all = (await b.ws.request('history', { peerId: a.user.id })).messages;
    expect(all.map((m) => m.id)).toEqual([m1.id, m2.message.id, m3.id]);
    for (const p of [a, b]) {
      expect(await Promise.all(all.map((m) => p.ws.textOf(m)))).toEqual([
        'under epoch 1',
        'under epoch 2',
        'also under epoch 2',
      ]);
    }

    // b starts over with a new identity (as after a reset on a browser without the keys).
    b.sealer.setContents((await putNewKeys(b.client, b.user.id, b.secrets, 'identity')).contents);
    expect(await refusal(a.ws, 'send', await a.ws.sealedSend(b.user.id, 'epoch 2?'))).toBe('rekey_required');
    await a.sealer.rekey(b.user.id, a.ws);
    const m4 = await a.ws.sendMessage(b.user.id, 'to the new identity');
    expect((await chatKeysOf(a, chatId)).at(-1)).toMatchObject({ epoch: 3, creatorId: a.user.id });
    expect(await b.ws.textOf(m4)).toBe('to the new identity');
    // b's new keys cannot open what was sealed to the old ones (until unlocked); a still reads it all,
    // including epoch 2's key, signed by b's old identity.
    await expect(b.ws.textOf(m1)).rejects.toThrow();
    a.sealer.forget(chatId);
    expect(await Promise.all([...all, m4].map((m) => a.ws.textOf(m)))).toEqual([
      'under epoch 1',
      'under epoch 2',
      'also under epoch 2',
      'to the new identity',
    ]);
  });

  it('nobody can seal to someone without keys (an account from before): recipient_no_keys', async () => {
    const a = await person();
    const legacy = await t.server.ctx.store.createUser({
      username: `legacy_${Date.now().toString(36).slice(-6)}`,
      email: `legacy_${randomUUID().slice(0, 8)}@example.com`,
      name: 'Legacy User',
      phone: '5551234567',
      age: 30,
      passwordHash: 'h',
      now: Date.now(),
    });
    expect((await a.ws.request('keys', { userIds: [legacy.id] })).keys).toEqual([]);
    const chatId = chatIdOf(a.user.id, legacy.id);
    const body = { to: legacy.id, msgId: randomUUID(), ct: sampleCiphertext(1) };
    expect(await refusal(a.ws, 'send', { ...body, chatKey: sampleChatKey(chatId, 1, a.user.id) })).toBe(
      'recipient_no_keys',
    );
    expect(await refusal(a.ws, 'send', body)).toBe('recipient_no_keys');
    expect(await chatKeysOf(a, chatId)).toEqual([]);
    expect((await a.ws.request('chats')).chats).toEqual([]);
  });

  it('keys: public keys only, of those who have any; chatKeys: only for the chat’s participants', async () => {
    const a = await person();
    const b = await person();
    const eve = await person();
    const answer = await a.ws.request('keys', { userIds: [b.user.id, a.user.id, b.user.id, 'A'.repeat(20)] });
    const expected = [(await ownKeysOf(a.client)).publicKeys, (await ownKeysOf(b.client)).publicKeys];
    const byId = (x: { userId: string }, y: { userId: string }) => (x.userId < y.userId ? -1 : 1);
    expect([...answer.keys].sort(byId)).toEqual(expected.sort(byId));
    // On the wire, nothing more than the public keys and identities (no bundle, salt or version).
    const raw = a.ws.frames.filter((f) => f.t === 'result').at(-1) as { data: { keys: object[] } };
    for (const k of raw.data.keys) {
      expect(Object.keys(k).sort()).toEqual(['identities', 'ik', 'uk', 'ukEpoch', 'ukSig', 'userId']);
    }
    expect(await refusal(a.ws, 'keys', { userIds: [] })).toBe('invalid_frame');
    expect(await refusal(a.ws, 'keys', { userIds: Array.from({ length: 101 }, () => b.user.id) })).toBe(
      'invalid_frame',
    );

    await a.ws.sendMessage(b.user.id, 'ours');
    const chatId = chatIdOf(a.user.id, b.user.id);
    expect(await chatKeysOf(b, chatId)).toHaveLength(1);
    expect(await refusal(eve.ws, 'chatKeys', { chatId })).toBe('not_found');
    expect(await refusal(eve.ws, 'chatKeys', { chatId: 'not a chat' })).toBe('invalid_frame');
    // A chat eve is named in but that has nothing yet: no keys.
    expect(await chatKeysOf(eve, chatIdOf(eve.user.id, a.user.id))).toEqual([]);
  });
});

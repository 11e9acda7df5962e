import { describe, expect, it } from 'vitest';
import { fromBase64Url, toBase64Url } from './bytes.ts';
import { type ChatKeyEnvelope, createChatKey, openChatKey, verifyChatKey } from './chat-key.ts';
import { E2EEAuthError } from './errors.ts';
import { decryptMessage, encryptMessage } from './message.ts';
import { ALICE, BOB, CAROL, CHAT, holder, pair } from './test/people.ts';

const place = { chatId: CHAT, msgId: 'msg-00000001', senderId: BOB, recipientId: ALICE };

function flip(b64: string, at: number): string {
  const data = fromBase64Url(b64);
  data[at] = (data[at] as number) ^ 1;
  return toBase64Url(data);
}

describe('chat keys', () => {
  it('both participants open the same key, sealed to each one and sorted by user id', async () => {
    const { alice, bob, envelope, key } = await pair(3);
    expect(envelope.seals.map((s) => s.userId)).toEqual([ALICE, BOB]);
    expect(envelope.epoch).toBe(3);
    const ct = await encryptMessage(key, place, { epoch: 3, rev: 0 }, 'both');
    for (const who of [alice, bob]) {
      const k = await openChatKey(who.keys, envelope, alice.publicKeys.ik);
      expect((await decryptMessage(k, place, ct)).text).toBe('both');
    }
  });

  it('refuses an envelope not signed by its creator, or by another identity', async () => {
    const { alice, bob, envelope } = await pair();
    expect(await verifyChatKey(envelope, alice.publicKeys.ik)).toBe(true);
    expect(await verifyChatKey(envelope, bob.publicKeys.ik)).toBe(false);
    await expect(openChatKey(bob.keys, envelope, bob.publicKeys.ik)).rejects.toBeInstanceOf(E2EEAuthError);
  });

  it('refuses any change to the envelope', async () => {
    const { alice, bob, envelope } = await pair();
    const [first, second] = envelope.seals as [ChatKeyEnvelope['seals'][0], ChatKeyEnvelope['seals'][0]];
    const changed: ChatKeyEnvelope[] = [
      { ...envelope, epoch: 2 },
      { ...envelope, chatId: `${ALICE}_${CAROL}` },
      { ...envelope, creatorId: BOB },
      { ...envelope, sig: flip(envelope.sig, 5) },
      { ...envelope, seals: [second, first] },
      { ...envelope, seals: [first] },
      { ...envelope, seals: [first, { ...second, ct: flip(second.ct, 0) }] },
      { ...envelope, seals: [first, { ...second, enc: flip(second.enc, 31) }] },
      { ...envelope, seals: [first, { ...second, ukEpoch: 2 }] },
    ];
    for (const bad of changed) {
      expect(await verifyChatKey(bad, alice.publicKeys.ik)).toBe(false);
      await expect(openChatKey(bob.keys, bad, alice.publicKeys.ik)).rejects.toBeInstanceOf(E2EEAuthError);
    }
  });

  it('will not seal to keys whose certificate does not verify, nor for a chat the creator is not in', async () => {
    const alice = await holder(ALICE);
    const bob = await holder(BOB);
    const mallory = await holder(BOB);
    const forged = { ...bob.publicKeys, uk: mallory.publicKeys.uk };
    await expect(createChatKey(alice.keys, CHAT, 1, [alice.publicKeys, forged])).rejects.toBeInstanceOf(E2EEAuthError);
    const carol = await holder(CAROL);
    await expect(createChatKey(carol.keys, CHAT, 1, [alice.publicKeys, bob.publicKeys])).rejects.toThrow(
      'Not a participant',
    );
  });

  it('a third person holding the envelope cannot open it', async () => {
    const { alice, envelope } = await pair();
    const carol = await holder(CAROL);
    await expect(openChatKey(carol.keys, envelope, alice.publicKeys.ik)).rejects.toBeInstanceOf(E2EEAuthError);
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { E2EEAuthError } from './errors.ts';
import { hkdfKey } from './hkdf.ts';
import { decryptReaction, encryptReaction, type ReactionPlace, reactionEpoch } from './reaction.ts';
import { ALICE, BOB, CHAT } from './test/people.ts';

/** The protocol's REACTION_CT_LENGTH (packages/protocol reactions.ts): the server takes only this length. */
const REACTION_CT_LENGTH = 130;

const place: ReactionPlace = { chatId: CHAT, msgId: 'msg-00000001', reactorId: BOB };

describe('reaction sealing', () => {
  it('opens what it sealed; every emoji seals to the one length the protocol takes', async () => {
    const k = await hkdfKey(new Uint8Array(32).fill(5));
    for (const emoji of ['👍', '❤️', '😂', '👨🏽‍👩🏽‍👧🏽‍👦🏽', 'a']) {
      const ct = await encryptReaction(k, place, 3, emoji);
      expect(ct).toHaveLength(REACTION_CT_LENGTH);
      expect(reactionEpoch(ct)).toBe(3);
      expect(await decryptReaction(k, place, ct)).toBe(emoji);
    }
  });

  it('does not open when moved to another message, chat, reactor, epoch or key', async () => {
    const k = await hkdfKey(new Uint8Array(32).fill(5));
    const ct = await encryptReaction(k, place, 1, '👍');
    const moved: ReactionPlace[] = [
      { ...place, msgId: 'msg-00000002' },
      { ...place, chatId: `${CHAT}x` },
      { ...place, reactorId: ALICE },
    ];
    for (const p of moved) await expect(decryptReaction(k, p, ct)).rejects.toThrow(E2EEAuthError);
    await expect(decryptReaction(await hkdfKey(new Uint8Array(32).fill(6)), place, ct)).rejects.toThrow(E2EEAuthError);
    // Another epoch claimed in the clear header: the associated data no longer matches.
    const bytes = Buffer.from(ct, 'base64url');
    bytes[4] = 2;
    await expect(decryptReaction(k, place, bytes.toString('base64url'))).rejects.toThrow(E2EEAuthError);
    await expect(decryptReaction(k, place, 'not base64!')).rejects.toThrow(E2EEAuthError);
  });

  it('refuses an empty or oversized emoji before sealing', async () => {
    const k = await hkdfKey(new Uint8Array(32).fill(5));
    await expect(encryptReaction(k, place, 1, '')).rejects.toThrow(RangeError);
    await expect(encryptReaction(k, place, 1, '👍'.repeat(16))).rejects.toThrow(RangeError);
  });
});

describe('the test-only null cipher', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it('when a test build turns it on, leaves the emoji in the clear at the same length, and reads it back', async () => {
    vi.stubGlobal('__PARLEY_TEST_NULL_CIPHER__', true);
    vi.resetModules();
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const nulled = await import('./reaction.ts');
    const k = await hkdfKey(new Uint8Array(32).fill(5));
    const ct = await nulled.encryptReaction(k, place, 1, '🦩');
    expect(Buffer.from(ct, 'base64url').includes(Buffer.from('🦩'))).toBe(true);
    expect(ct).toHaveLength(REACTION_CT_LENGTH);
    expect(await nulled.decryptReaction(k, place, ct)).toBe('🦩');
  });
});

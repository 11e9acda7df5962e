/**
 * MessageCrypto's cache: two views of one message revision holding different ciphertexts
 * (the chat list's summary and the conversation's row, when the server's copies disagree)
 * each settle on their own answer, instead of replacing each other's and opening again
 * for ever (a tab that did so kept its main thread busy).
 */
import { describe, expect, it } from 'vitest';
import type { ChatKeys } from '../keys/chat-keys';
import { MessageCrypto, type SealedRef } from './message-crypto';
import { Revisions } from './revisions';

const ref = (ct: string): SealedRef => ({
  chatId: 'a_b',
  id: 'm1',
  senderId: 'a',
  recipientId: 'b',
  ct,
  rev: 1,
  legacyText: null,
  deleted: false,
  timestamp: 1,
});

/** Keys that are not there: every opening answers at once, the same way. */
const noKeys = { me: async () => null } as unknown as ChatKeys;

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('MessageCrypto', () => {
  it('keeps what two different ciphertexts of one revision say apart, and stops opening them', async () => {
    let changes = 0;
    const crypto = new MessageCrypto(
      noKeys,
      () => {
        changes += 1;
      },
      new Revisions('a'),
    );
    const list = ref('ciphertext-of-the-summary');
    const row = ref('ciphertext-of-the-row');
    // Both views render, as React would after each change, until nothing changes.
    for (let round = 0; round < 20; round++) {
      crypto.shown(list);
      crypto.shown(row);
      await settle();
    }
    expect(crypto.shown(list).kind).not.toBe('opening');
    expect(crypto.shown(row).kind).not.toBe('opening');
    // Each was opened once: two changes, then quiet.
    expect(changes).toBe(2);
    // The same answer object each time (React reads it as a snapshot).
    expect(crypto.shown(list)).toBe(crypto.shown(list));
  });
});

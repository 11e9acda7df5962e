/**
 * Sealed sends at the storage level, for the store contract tests: users with keys (a
 * user_keys row, as sign-up with end-to-end encryption leaves), and sample ciphertexts
 * (nobody opens them; the server cannot tell) under the chat's current key, bringing a
 * sample key for epoch 1 on a chat's first message.
 */
import { chatIdOf } from '@app/protocol';
import { SAMPLE_BUNDLE, SAMPLE_KEYS, sampleChatKey, sampleCiphertext } from '@app/protocol/test/samples';
import type { Kysely } from 'kysely';
import { insertKeys } from '../storage/accounts/key-store.ts';
import { currentKeyEpoch } from '../storage/messages/chat-keys.ts';
import type { Database } from '../storage/schema.ts';

/** Gives a user public keys of encryption-key epoch `ukEpoch` (and a bundle nobody opens). */
export async function giveKeys(db: Kysely<Database>, userId: string, ukEpoch = 1): Promise<void> {
  await insertKeys(db, userId, { ...SAMPLE_KEYS, ukEpoch, bundle: SAMPLE_BUNDLE }, 1);
}

/**
 * A sample ciphertext of revision `rev` (distinct per `fill`, 0 to 255), shaped as sealed
 * under the chat's current key epoch. Sealed by the first sender of a chat that has no
 * key yet, it brings epoch 1's key (sealed to both at encryption-key epoch 1).
 */
export async function sampleSealed(db: Kysely<Database>, senderId: string, recipientId: string, fill = 7, rev = 0) {
  const chatId = chatIdOf(senderId, recipientId);
  const epoch = await currentKeyEpoch(db, chatId);
  if (epoch !== null) return { ct: sampleCiphertext(epoch, rev, 67, fill) };
  return { ct: sampleCiphertext(1, rev, 67, fill), chatKey: sampleChatKey(chatId, 1, senderId) };
}

/** The sample ciphertext `sampleSealed` makes for `fill` under epoch 1. */
export function sampleText(fill: number, rev = 0): string {
  return sampleCiphertext(1, rev, 67, fill);
}

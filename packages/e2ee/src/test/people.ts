/** Two account holders with keys and a chat between them, for the package's tests. */
import {
  type AccountKeys,
  type BundleContents,
  createAccount,
  importAccount,
  type PublicKeys,
} from '../account-keys.ts';
import { createChatKey } from '../chat-key.ts';

export interface Holder {
  userId: string;
  contents: BundleContents;
  publicKeys: PublicKeys;
  keys: AccountKeys;
}

export async function holder(userId: string): Promise<Holder> {
  const { contents, publicKeys } = await createAccount(userId);
  return { userId, contents, publicKeys, keys: await importAccount(contents, userId) };
}

export const ALICE = 'A'.repeat(20);
export const BOB = 'B'.repeat(20);
export const CAROL = 'C'.repeat(20);
export const CHAT = `${ALICE}_${BOB}`;

export async function pair(epoch = 1) {
  const alice = await holder(ALICE);
  const bob = await holder(BOB);
  const made = await createChatKey(alice.keys, CHAT, epoch, [alice.publicKeys, bob.publicKeys]);
  return { alice, bob, ...made };
}

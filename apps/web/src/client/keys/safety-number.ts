/**
 * The safety number of a chat (docs/e2ee.md): Signal's numeric fingerprint of both
 * people's identity keys, 60 digits in 12 groups. Both people see the same digits; if
 * they match on both screens (compared side by side, in person), nobody sits between them.
 */
import type { ChatKeys } from './chat-keys';
import { loadE2ee } from './chat-keys';

export type SafetyNumber =
  /** `peerIk`: the identity key of the peer the number was made from (what "Mark as confirmed" marks). */
  { kind: 'number'; groups: string[]; peerIk: string } | { kind: 'nokeys' } | { kind: 'peer-nokeys' };

export async function safetyNumberOf(keys: ChatKeys, me: string, peerId: string): Promise<SafetyNumber> {
  const [e2ee, mine, theirs] = await Promise.all([loadE2ee(), keys.me(), keys.publicKeys(peerId, true)]);
  if (!mine) return { kind: 'nokeys' };
  if (!theirs) return { kind: 'peer-nokeys' };
  return {
    kind: 'number',
    groups: e2ee.safetyNumber({ userId: me, ik: mine.ikPublic }, { userId: peerId, ik: theirs.ik }),
    peerIk: theirs.ik,
  };
}

/**
 * What this browser knows of a peer's identity (design e2ee.md 2.7): the identities the
 * server lists for them (oldest first, each with the time it began: a change is shown in
 * the chat as "security code changed"), and the one the user marked as verified here. A
 * verified peer whose identity changed blocks the composer until the user verifies the new
 * code or accepts it (Signal's behaviour). One store per tab; screens subscribe.
 */
import type { IdentityWire } from '@app/protocol';
import type { ChatKeys } from './chat-keys';
import { loadVerified, saveVerified } from './local-keys';

export interface PeerTrust {
  /** The peer's current identity key (null: no keys yet). */
  ik: string | null;
  identities: readonly IdentityWire[];
  /** The identity key marked verified in this browser, or null. */
  verifiedIk: string | null;
}

/** Verified, and still the same identity. */
export const isVerified = (t: PeerTrust | null) => Boolean(t?.ik && t.verifiedIk === t.ik);
/** Verified once, and the identity changed since: sending waits for the user. */
export const isBlocked = (t: PeerTrust | null) => Boolean(t?.verifiedIk && t.verifiedIk !== t.ik);

const trusts = new Map<string, PeerTrust>();
const listeners = new Set<() => void>();

export function subscribeTrust(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function trustOf(userId: string, peerId: string): PeerTrust | null {
  return trusts.get(`${userId}/${peerId}`) ?? null;
}

/** Reads the peer's identities (again from the server when `fresh`) and the verified mark. */
export async function refreshTrust(keys: ChatKeys, userId: string, peerId: string, fresh = false): Promise<PeerTrust> {
  const [pub, verifiedIk] = await Promise.all([
    keys.publicKeys(peerId, fresh).catch(() => null),
    loadVerified(userId, peerId),
  ]);
  const next: PeerTrust = { ik: pub?.ik ?? null, identities: pub?.identities ?? [], verifiedIk };
  const key = `${userId}/${peerId}`;
  const now = trusts.get(key);
  if (
    !now ||
    now.ik !== next.ik ||
    now.verifiedIk !== next.verifiedIk ||
    now.identities.length !== next.identities.length
  ) {
    trusts.set(key, next);
    for (const l of listeners) l();
  }
  return next;
}

/**
 * Marks `shownIk`, the peer identity whose security code the user compared, as verified;
 * refused when the peer's identity is another by now (the user compared an old code).
 * null clears the mark (or accepts a change).
 */
export async function setVerified(
  keys: ChatKeys,
  userId: string,
  peerId: string,
  shownIk: string | null,
): Promise<void> {
  if (shownIk !== null) {
    const t = await refreshTrust(keys, userId, peerId, true);
    if (t.ik !== shownIk) throw new Error('The security code changed meanwhile: compare the new one.');
  }
  await saveVerified(userId, peerId, shownIk);
  await refreshTrust(keys, userId, peerId);
}

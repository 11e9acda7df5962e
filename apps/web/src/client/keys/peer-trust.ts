/**
 * What this user trusts of a peer's identity (docs/threat-model.md, "Key changes"): their
 * current identity key as the server says it (checked against the pins, peer-keys.ts),
 * when this user's browsers first saw each change of it (the chat's "security code
 * changed" lines, at those moments rather than at times the server names), and the identity
 * the user marked verified. Pins and marks are account data, shared by every browser of the
 * user. A verified peer whose identity changed blocks the composer until the user verifies
 * the new code or accepts it (Signal's behaviour). One store per tab; screens subscribe.
 */
import type { ChatKeys } from './chat-keys';

export interface PeerTrust {
  /** The peer's current identity key (null: no keys yet). */
  ik: string | null;
  /** When a browser of this user first saw each identity after the first (ms). */
  changes: readonly number[];
  /** The identity key marked verified, or null. */
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

/** Reads the peer's identity (again from the server when `fresh`), the pins and the verified mark. */
export async function refreshTrust(keys: ChatKeys, userId: string, peerId: string, fresh = false): Promise<PeerTrust> {
  // The record after the keys: fetching them may pin a new identity.
  const pub = await keys.publicKeys(peerId, fresh).catch(() => null);
  const record = await keys.peers.record(peerId).catch(() => undefined);
  const next: PeerTrust = {
    ik: pub?.ik ?? null,
    changes: record?.iks.slice(1).map((i) => i.seen) ?? [],
    verifiedIk: record?.verified ?? null,
  };
  const key = `${userId}/${peerId}`;
  const now = trusts.get(key);
  if (!now || now.ik !== next.ik || now.verifiedIk !== next.verifiedIk || now.changes.join() !== next.changes.join()) {
    trusts.set(key, next);
    for (const l of listeners) l();
  }
  return next;
}

/**
 * Marks `shownIk`, the peer identity whose security code the user compared, as verified;
 * refused when the peer's identity is another by now (the user compared an old code).
 * null clears the mark (or accepts a change). Every browser of the user holds it.
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
  await keys.peers.setVerified(peerId, shownIk);
  await refreshTrust(keys, userId, peerId);
}

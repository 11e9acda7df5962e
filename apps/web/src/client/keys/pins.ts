/**
 * Which of a peer's identities this user trusts (docs/threat-model.md, "Key changes"): at
 * first sight, every identity the server lists (trust on first use); after that, each new
 * current one (a password reset), pinned at the moment a browser of this user first saw it,
 * which is where the chat says "security code changed". Never an "earlier" identity that
 * shows up later (a server inventing a past identity could sign chat keys in the peer's name
 * with it), and never a return to an older pinned one: identities only move forward.
 */
import type { PeerTrustRecord } from '@app/e2ee';
import type { IdentityWire } from '@app/protocol';

export type PinOutcome =
  /** `record`: the peer's pins now; `changed`: they differ from what was stored (save them). */
  | { kind: 'trusted'; trusted: Set<string>; record: PeerTrustRecord; changed: boolean }
  /** The server says the peer's identity is one they had before a newer pinned one: refused. */
  | { kind: 'older'; trusted: Set<string>; record: PeerTrustRecord };

export function pinIdentities(
  listed: readonly IdentityWire[],
  current: string,
  stored: PeerTrustRecord | undefined,
  now: number,
): PinOutcome {
  if (!stored) {
    const iks = listed.filter((i) => i.ik !== current).map((i) => ({ ik: i.ik, seen: i.since }));
    const since = listed.find((i) => i.ik === current)?.since ?? now;
    const record = { iks: [...iks, { ik: current, seen: since }] };
    return { kind: 'trusted', trusted: new Set(record.iks.map((i) => i.ik)), record, changed: true };
  }
  const trusted = new Set(stored.iks.map((i) => i.ik));
  if (stored.iks.at(-1)?.ik === current) return { kind: 'trusted', trusted, record: stored, changed: false };
  if (trusted.has(current)) return { kind: 'older', trusted, record: stored };
  const record = { ...stored, iks: [...stored.iks, { ik: current, seen: now }] };
  trusted.add(current);
  return { kind: 'trusted', trusted, record, changed: true };
}

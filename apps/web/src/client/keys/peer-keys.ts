/**
 * People's public keys as this user trusts them (docs/threat-model.md, "Key changes"): the
 * `keys` request, each answer checked against its identity's signature and against the
 * pins every browser of this user shares in the account data (pins.ts, account-data.ts):
 * an identity first seen now is pinned now (where the chat says "security code changed"),
 * a return to an older one is refused, and a peer marked verified whose identity changed
 * is not sealed to until the user verifies the new code or accepts it.
 */
import type { AccountDataContents, PeerTrustRecord } from '@app/e2ee';
import type { PublicKeysWire } from '@app/protocol';
import { type ChatSocket, RequestError } from '../socket/chat-socket';
import type { AccountData } from './account-data';
import { loadE2ee } from './load-e2ee';
import { loadPins, loadVerified } from './local-keys';
import { pinIdentities } from './pins';

/** The socket, as far as keys need it. */
export type KeyRequests = Pick<ChatSocket, 'request'>;

export const OLDER_IDENTITY_REFUSED =
  'The server says this person’s security code is one they had before, which is never so: nothing is sent to it. Ask them to check their account.';
export const CODE_CHANGED = 'Their security code changed: verify it or accept it, then send again.';

/** `contents` with `peerId`'s record replaced (or removed, for undefined). */
function withPeer(
  contents: AccountDataContents,
  peerId: string,
  record: PeerTrustRecord | undefined,
): AccountDataContents {
  const peers = { ...contents.peers };
  if (record) peers[peerId] = record;
  else delete peers[peerId];
  return { ...contents, peers };
}

export class PeerKeys {
  private readonly userId: string;
  private readonly socket: KeyRequests;
  private readonly data: AccountData;
  private readonly publics = new Map<string, Promise<PublicKeysWire | null>>();
  /** People whose current identity (as the server says) is an older pinned one. */
  private readonly refused = new Set<string>();
  /** The identity key last fetched for each person, to tell when it changes. */
  private readonly seenIk = new Map<string, string>();
  private readonly identityListeners = new Set<(userId: string) => void>();

  constructor(userId: string, socket: KeyRequests, data: AccountData) {
    this.userId = userId;
    this.socket = socket;
    this.data = data;
  }

  /** Calls `listener` with a person's id when a fetch finds their identity key changed. */
  onIdentityChange(listener: (userId: string) => void): () => void {
    this.identityListeners.add(listener);
    return () => this.identityListeners.delete(listener);
  }

  /**
   * Someone's public keys, checked (null: none, or their certificate does not verify), with
   * only the identities this user trusts. One's own are the server's copy, unpinned: the
   * browser uses its bundle's and compares (chat-keys.ts sendingKey).
   */
  publicKeys(userId: string, fresh = false): Promise<PublicKeysWire | null> {
    let p = fresh ? undefined : this.publics.get(userId);
    if (!p) {
      p = (async () => {
        const [e2ee, r] = await Promise.all([loadE2ee(), this.socket.request('keys', { userIds: [userId] })]);
        const k = r.keys.find((x) => x.userId === userId);
        const checked = k && (await e2ee.verifyPublicKeys(k)) ? await this.pinned(k) : null;
        const before = this.seenIk.get(userId);
        if (checked) this.seenIk.set(userId, checked.ik);
        if (checked && before !== undefined && before !== checked.ik) for (const l of this.identityListeners) l(userId);
        return checked;
      })();
      this.publics.set(userId, p);
      p.catch(() => this.publics.delete(userId));
    }
    return p;
  }

  /** Forgets what was fetched of `userId` (the server says their keys moved on). */
  forget(userId: string): void {
    this.publics.delete(userId);
  }

  /** Forgets everyone's (this account's keys changed). */
  forgetAll(): void {
    this.publics.clear();
  }

  /** What this user's browsers pinned of `peerId` (undefined: never seen). */
  async record(peerId: string): Promise<PeerTrustRecord | undefined> {
    return (await this.data.read()).peers[peerId];
  }

  /**
   * Refuses to seal anything to `peerId` whose identity went back to an older one, or who
   * was marked verified and whose identity changed since (`ik`: their current identity key).
   */
  async assertSendable(peerId: string, ik?: string): Promise<void> {
    const current = ik ?? (await this.publicKeys(peerId))?.ik;
    if (this.refused.has(peerId)) throw new RequestError('forbidden', OLDER_IDENTITY_REFUSED);
    const verified = (await this.record(peerId))?.verified;
    if (verified && current && verified !== current) throw new RequestError('forbidden', CODE_CHANGED);
  }

  /** Marks `ik` as `peerId`'s verified identity (null: not verified, or a change accepted), for every browser. */
  async setVerified(peerId: string, ik: string | null): Promise<void> {
    await this.data.update((c) => {
      const record = c.peers[peerId];
      if (!record || (record.verified ?? null) === ik) return null;
      const { verified: _, ...rest } = record;
      return withPeer(c, peerId, ik === null ? rest : { ...rest, verified: ik });
    });
  }

  /** `k` with only the identities this user trusts; pins a new one (account data). */
  private async pinned(k: PublicKeysWire): Promise<PublicKeysWire> {
    if (k.userId === this.userId) return k;
    const peerId = k.userId;
    const inData = (await this.data.read()).peers[peerId];
    const stored = inData ?? (await this.fromThisBrowser(peerId, k));
    const now = Date.now();
    let out = pinIdentities(k.identities, k.ik, stored, now);
    if (out.kind === 'trusted' && (out.changed || !inData)) {
      const first = out.record;
      await this.data.update((c) => {
        const again = pinIdentities(k.identities, k.ik, c.peers[peerId] ?? first, now);
        return again.kind === 'trusted' && (again.changed || !c.peers[peerId])
          ? withPeer(c, peerId, again.record)
          : null;
      });
      // As the pins are now (another browser may have pinned a newer identity meanwhile).
      out = pinIdentities(k.identities, k.ik, (await this.data.read()).peers[peerId] ?? first, now);
    }
    if (out.kind === 'older') this.refused.add(peerId);
    else this.refused.delete(peerId);
    return { ...k, identities: k.identities.filter((i) => out.trusted.has(i.ik)) };
  }

  /**
   * What this browser pinned and marked before pins were account data (IndexedDB), as a
   * record to carry over; undefined when it holds nothing of `peerId`.
   */
  private async fromThisBrowser(peerId: string, k: PublicKeysWire): Promise<PeerTrustRecord | undefined> {
    const [pins, verified] = await Promise.all([loadPins(this.userId, peerId), loadVerified(this.userId, peerId)]);
    if (!pins) return undefined;
    const since = new Map(k.identities.map((i) => [i.ik, i.since]));
    return {
      iks: pins.map((ik) => ({ ik, seen: since.get(ik) ?? 0 })),
      ...(verified ? { verified } : {}),
    };
  }
}

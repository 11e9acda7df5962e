/**
 * Account data (docs/e2ee.md, "Account data"): what a user's browsers share about
 * their peers, sealed with AES-256-GCM under the account's data key (ADK, in the bundle) and
 * kept by the server, which cannot read it. For each peer: every identity key pinned, in the
 * order first seen, each with the time a browser of this user first saw it (a change is
 * shown in the chat at that time, not at one the server names), and the identity marked
 * verified. AAD binds the owner and the version, so the server cannot hand one user's data
 * to another, nor an older version as a newer one (sealed-json.ts).
 */
import type { CryptoKey } from './crypto-key.ts';
import { E2EEAuthError } from './errors.ts';
import { openJson, sealJson } from './sealed-json.ts';

const LABEL = 'parley/account-data/v1';

export interface PinnedIdentity {
  ik: string;
  /** When a browser of this user first saw it (ms, that browser's clock). */
  seen: number;
}

export interface PeerTrustRecord {
  /** Oldest first; the last is the one current when last seen. */
  iks: PinnedIdentity[];
  /** The identity key the user compared and marked verified, if any. */
  verified?: string;
}

export interface AccountDataContents {
  v: 1;
  peers: Record<string, PeerTrustRecord>;
}

export const EMPTY_ACCOUNT_DATA: AccountDataContents = Object.freeze({ v: 1, peers: {} }) as AccountDataContents;

export function sealAccountData(
  adk: CryptoKey,
  userId: string,
  version: number,
  contents: AccountDataContents,
): Promise<string> {
  return sealJson(adk, { label: LABEL, userId, version }, contents);
}

export function openAccountData(
  adk: CryptoKey,
  userId: string,
  version: number,
  sealed: string,
): Promise<AccountDataContents> {
  return openJson(adk, { label: LABEL, userId, version }, sealed, 'The account data', parseAccountData);
}

const isIdentity = (x: unknown): x is PinnedIdentity =>
  typeof x === 'object' &&
  x !== null &&
  typeof (x as PinnedIdentity).ik === 'string' &&
  Number.isSafeInteger((x as PinnedIdentity).seen);

function parseAccountData(v: unknown): AccountDataContents {
  const c = v as AccountDataContents;
  const ok =
    typeof c === 'object' &&
    c !== null &&
    c.v === 1 &&
    typeof c.peers === 'object' &&
    c.peers !== null &&
    Object.values(c.peers).every(
      (p) =>
        typeof p === 'object' &&
        p !== null &&
        Array.isArray(p.iks) &&
        p.iks.length > 0 &&
        p.iks.every(isIdentity) &&
        (p.verified === undefined || typeof p.verified === 'string'),
    );
  if (!ok) throw new E2EEAuthError('The account data');
  return c;
}

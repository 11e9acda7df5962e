/**
 * Account data (design docs/e2ee.md, "Account data"): what a user's browsers share about
 * their peers, sealed with AES-256-GCM under the account's data key (ADK, in the bundle) and
 * kept by the server, which cannot read it. For each peer: every identity key pinned, in the
 * order first seen, each with the time a browser of this user first saw it (a change is
 * shown in the chat at that time, not at one the server names), and the identity marked
 * verified. AAD binds the owner and the version, so the server cannot hand one user's data
 * to another, nor an older version as a newer one.
 * Wire form: base64url(0x01 ‖ nonce(12) ‖ ciphertext ‖ tag).
 */
import { aeadOpen, aeadSeal } from './aead.ts';
import { concat, fields, fromBase64Url, fromUtf8, toBase64Url, u32, utf8 } from './bytes.ts';
import type { CryptoKey } from './crypto-key.ts';
import { authenticated, E2EEAuthError } from './errors.ts';

const FORMAT = 0x01;
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

function aad(userId: string, version: number): Uint8Array {
  return fields(LABEL, userId, u32(version));
}

export async function sealAccountData(
  adk: CryptoKey,
  userId: string,
  version: number,
  contents: AccountDataContents,
): Promise<string> {
  const sealed = await aeadSeal(adk, utf8(JSON.stringify(contents)), aad(userId, version));
  return toBase64Url(concat(new Uint8Array([FORMAT]), sealed));
}

export function openAccountData(
  adk: CryptoKey,
  userId: string,
  version: number,
  sealed: string,
): Promise<AccountDataContents> {
  return authenticated('The account data', async () => {
    const data = fromBase64Url(sealed);
    if (data[0] !== FORMAT) throw new E2EEAuthError('The account data');
    const plain = await aeadOpen(adk, data.subarray(1), aad(userId, version));
    return parseAccountData(JSON.parse(fromUtf8(plain)));
  });
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

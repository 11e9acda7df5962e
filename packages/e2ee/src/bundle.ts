/**
 * The key bundle (docs/e2ee.md): the account's private keys, sealed with AES-256-GCM under
 * a key the server never sees (the password's `wrapKey`, a recovery key's, or a
 * browser's own). AAD binds the owner and the bundle version, so the server cannot hand
 * one user's bundle to another or roll a user back to a bundle sealed earlier under the
 * same key without the client noticing the version (sealed-json.ts).
 */

import type { BundleContents, KeyPairJwk } from './account-keys.ts';
import { utf8 } from './bytes.ts';
import type { CryptoKey } from './crypto-key.ts';
import { E2EEAuthError } from './errors.ts';
import { hkdfAesKey } from './hkdf.ts';
import { openJson, sealJson } from './sealed-json.ts';

const LABEL = 'parley/bundle/v1';
const RECOVERY_INFO = 'parley/recovery/v1';

export function sealBundle(contents: BundleContents, key: CryptoKey, userId: string, version: number): Promise<string> {
  return sealJson(key, { label: LABEL, userId, version }, contents);
}

export function openBundle(sealed: string, key: CryptoKey, userId: string, version: number): Promise<BundleContents> {
  return openJson(key, { label: LABEL, userId, version }, sealed, 'The key bundle', parseContents);
}

/** The key a recovery key seals the bundle under. */
export async function recoveryWrapKey(recoveryKey: Uint8Array): Promise<CryptoKey> {
  return hkdfAesKey(recoveryKey, utf8(RECOVERY_INFO));
}

function isPair(v: unknown): v is KeyPairJwk {
  const p = v as KeyPairJwk;
  return typeof p === 'object' && p !== null && typeof p.d === 'string' && typeof p.x === 'string';
}

function parseContents(v: unknown): BundleContents {
  const c = v as BundleContents;
  const ok =
    typeof c === 'object' &&
    c !== null &&
    c.v === 1 &&
    isPair(c.ik) &&
    typeof c.adk === 'string' &&
    Array.isArray(c.uks) &&
    c.uks.length > 0 &&
    c.uks.every((k) => isPair(k) && Number.isInteger(k.epoch) && k.epoch > 0) &&
    (c.past === undefined || (Array.isArray(c.past) && c.past.every((ik) => typeof ik === 'string'))) &&
    (c.started === undefined ||
      (typeof c.started === 'object' &&
        c.started !== null &&
        Number.isSafeInteger(c.started.at) &&
        c.started.at >= 0 &&
        typeof c.started.legacy === 'boolean' &&
        (c.started.tombstones === undefined ||
          (Number.isSafeInteger(c.started.tombstones) && c.started.tombstones >= 0))));
  if (!ok) throw new E2EEAuthError('The key bundle');
  return c;
}

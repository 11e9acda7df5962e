/**
 * Account-level keys (docs/e2ee.md), shared by all of a user's browsers:
 * - IK, an Ed25519 identity key: safety numbers cover it; it signs UK and chat keys;
 * - UK[e], X25519 encryption keys with epochs, each certified by IK;
 * - ADK, 32 bytes for the user's encrypted account data.
 * The private halves travel only inside the password-sealed bundle (bundle.ts).
 */

import { type Bytes, fields, fromBase64Url, randomBytes, toBase64Url, u32 } from './bytes.ts';
import type { CryptoKey } from './crypto-key.ts';
import { aesKey } from './hkdf.ts';

/** What anyone may fetch about a user: enough to seal a chat key to them and check it. */
export interface PublicKeys {
  userId: string;
  /** Ed25519 public key, base64url. */
  ik: string;
  ukEpoch: number;
  /** X25519 public key of epoch `ukEpoch`, base64url. */
  uk: string;
  /** IK's signature over (userId, ukEpoch, uk), base64url. */
  ukSig: string;
}

export interface KeyPairJwk {
  /** Private scalar / seed, base64url (JWK `d`). */
  d: string;
  /** Public key, base64url (JWK `x`). */
  x: string;
}

/** The plaintext of a bundle: every private key the account has had, and ADK. */
export interface BundleContents {
  v: 1;
  ik: KeyPairJwk;
  uks: (KeyPairJwk & { epoch: number })[];
  /** base64url, 32 bytes. */
  adk: string;
  /**
   * Public identity keys the account had before its current one (a password reset made a
   * new identity, and the old keys were unlocked later): chat keys they signed still verify.
   */
  past?: string[];
  /**
   * When the account got its keys (ms) and whether it had messages before: an account made
   * with keys has none from before end-to-end encryption, so a message in the clear in its
   * chats was put there by the server; an upgraded one has them only from before `at`.
   * Sealed with the keys, so the server cannot change it. Bundles made before it was kept
   * lack it until the next sign-in fills it in.
   */
  started?: AccountStart;
}

export interface AccountStart {
  at: number;
  legacy: boolean;
  /**
   * Since when this account's browsers seal deletions (tombstones): a deletion without one
   * of a message sent after it was not the sender's. Its start for an account made since;
   * for an older one, when its bundle first said so.
   */
  tombstones?: number;
}

/** Keys ready to use: private halves non-extractable. */
export interface AccountKeys {
  userId: string;
  ikPrivate: CryptoKey;
  ikPublic: string;
  ukEpoch: number;
  /** X25519 private keys by epoch (all epochs, so old chat keys still open). */
  ukPrivate: ReadonlyMap<number, CryptoKey>;
  adk: CryptoKey;
  /** Earlier identity public keys of this account (see BundleContents.past). */
  pastIks: readonly string[];
  /**
   * The account's public keys as this browser holds them (its current identity and
   * encryption key, certified here): what it seals chat keys to, never the server's copy.
   */
  publicKeys: PublicKeys;
  /** See BundleContents.started; null for a bundle that predates it. */
  started: AccountStart | null;
  /** Which data key `adk` is (a digest of it): account data sealed under another is another identity's. */
  adkId: string;
}

const UK_SIG_LABEL = 'parley/uk/v1';

async function generateJwk(name: 'Ed25519' | 'X25519'): Promise<KeyPairJwk> {
  const usages: ('sign' | 'verify' | 'deriveBits')[] = name === 'Ed25519' ? ['sign', 'verify'] : ['deriveBits'];
  const pair = (await crypto.subtle.generateKey({ name }, true, usages)) as unknown as { privateKey: CryptoKey };
  const jwk = await crypto.subtle.exportKey('jwk', pair.privateKey);
  if (!jwk.d || !jwk.x) throw new Error(`${name} key export gave no JWK`);
  return { d: jwk.d, x: jwk.x };
}

export async function importPrivate(name: 'Ed25519' | 'X25519', pair: KeyPairJwk): Promise<CryptoKey> {
  const jwk = { kty: 'OKP', crv: name, d: pair.d, x: pair.x };
  return crypto.subtle.importKey('jwk', jwk, { name }, false, name === 'Ed25519' ? ['sign'] : ['deriveBits']);
}

export async function importIdentityPublic(ik: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', fromBase64Url(ik), { name: 'Ed25519' }, false, ['verify']);
}

function ukSigned(userId: string, epoch: number, uk: string): Bytes {
  return fields(UK_SIG_LABEL, userId, u32(epoch), fromBase64Url(uk));
}

export async function sign(ikPrivate: CryptoKey, message: Uint8Array): Promise<string> {
  const sig = await crypto.subtle.sign({ name: 'Ed25519' }, ikPrivate, message as Bytes);
  return toBase64Url(new Uint8Array(sig));
}

/** False for a bad signature or a key or signature that is not even well-formed. */
export async function verify(ik: string, message: Uint8Array, sig: string): Promise<boolean> {
  try {
    const key = await importIdentityPublic(ik);
    return await crypto.subtle.verify({ name: 'Ed25519' }, key, fromBase64Url(sig), message as Bytes);
  } catch {
    return false;
  }
}

export async function verifyPublicKeys(keys: PublicKeys): Promise<boolean> {
  return verify(keys.ik, ukSigned(keys.userId, keys.ukEpoch, keys.uk), keys.ukSig);
}

/**
 * A new identity: IK, UK[firstEpoch], ADK, and the public half to publish. `firstEpoch`
 * is 1 for a new account, and one past the last epoch for an identity made after a
 * password reset (so every epoch number of an account means one key).
 */
export async function createAccount(
  userId: string,
  firstEpoch = 1,
  started?: AccountStart,
): Promise<{ contents: BundleContents; publicKeys: PublicKeys }> {
  const ik = await generateJwk('Ed25519');
  const contents: BundleContents = {
    v: 1,
    ik,
    uks: [],
    adk: toBase64Url(randomBytes(32)),
    ...(started ? { started } : {}),
  };
  return addEncryptionEpoch(contents, userId, firstEpoch);
}

/**
 * A new UK epoch (key rotation, or a fresh identity after a reset): the old private keys
 * stay in the bundle so earlier chat keys still open.
 */
export async function addEncryptionEpoch(
  contents: BundleContents,
  userId: string,
  atLeast = 1,
): Promise<{ contents: BundleContents; publicKeys: PublicKeys }> {
  const epoch = Math.max(atLeast - 1, ...contents.uks.map((k) => k.epoch)) + 1;
  const uk = await generateJwk('X25519');
  const next: BundleContents = { ...contents, uks: [...contents.uks, { ...uk, epoch }] };
  return { contents: next, publicKeys: await publicKeysOf(next, userId) };
}

/**
 * The current bundle with an older one's keys brought back (docs/e2ee.md, unlocking history
 * after a password reset): its encryption keys (epoch numbers are unique across an
 * account's identities, as the server takes a new identity only with a later epoch than
 * every earlier one; on a clash the current key is kept) and its identity as a past one.
 * The current identity, ADK and newest epoch stay.
 */
export function mergeBundles(current: BundleContents, older: BundleContents): BundleContents {
  const held = new Set(current.uks.map((k) => k.epoch));
  const uks = [...current.uks, ...older.uks.filter((k) => !held.has(k.epoch))].sort((a, b) => a.epoch - b.epoch);
  const past = [...new Set([...(current.past ?? []), ...(older.past ?? []), older.ik.x])].filter(
    (ik) => ik !== current.ik.x,
  );
  const started = earlierStart(current.started, older.started);
  return { ...current, uks, ...(past.length ? { past } : {}), ...(started ? { started } : {}) };
}

/** The account began at the earlier of two starts, and had messages from before if either says so. */
function earlierStart(a: AccountStart | undefined, b: AccountStart | undefined): AccountStart | undefined {
  if (!a || !b) return a ?? b;
  const tombstones = [a.tombstones, b.tombstones].filter((t) => t !== undefined);
  return {
    at: Math.min(a.at, b.at),
    legacy: a.legacy || b.legacy,
    ...(tombstones.length ? { tombstones: Math.min(...tombstones) } : {}),
  };
}

/** True when `older` holds keys `current` lacks (merging it would bring something back). */
export function bundleAdds(current: BundleContents, older: BundleContents): boolean {
  const held = new Set(current.uks.map((k) => k.epoch));
  return older.uks.some((k) => !held.has(k.epoch));
}

export async function publicKeysOf(contents: BundleContents, userId: string): Promise<PublicKeys> {
  const current = currentUk(contents);
  const ikPrivate = await importPrivate('Ed25519', contents.ik);
  const ukSig = await sign(ikPrivate, ukSigned(userId, current.epoch, current.x));
  return { userId, ik: contents.ik.x, ukEpoch: current.epoch, uk: current.x, ukSig };
}

function currentUk(contents: BundleContents): KeyPairJwk & { epoch: number } {
  const current = contents.uks.reduce<(KeyPairJwk & { epoch: number }) | undefined>(
    (best, k) => (!best || k.epoch > best.epoch ? k : best),
    undefined,
  );
  if (!current) throw new Error('The bundle has no encryption key');
  return current;
}

export async function importAccount(contents: BundleContents, userId: string): Promise<AccountKeys> {
  const ukPrivate = new Map<number, CryptoKey>();
  for (const uk of contents.uks) ukPrivate.set(uk.epoch, await importPrivate('X25519', uk));
  const adk = await aesKey(fromBase64Url(contents.adk));
  return {
    userId,
    ikPrivate: await importPrivate('Ed25519', contents.ik),
    ikPublic: contents.ik.x,
    ukEpoch: currentUk(contents).epoch,
    ukPrivate,
    adk,
    pastIks: contents.past ?? [],
    publicKeys: await publicKeysOf(contents, userId),
    started: contents.started ?? null,
    adkId: await keyId(fromBase64Url(contents.adk)),
  };
}

/** A digest of a key that names it without revealing it. */
async function keyId(raw: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', fields('parley/key-id/v1', raw)));
  return toBase64Url(digest.subarray(0, 16));
}

/** Whether the server's copy of an account's public keys is the one its bundle makes. */
export function samePublicKeys(a: Omit<PublicKeys, 'ukSig'>, b: Omit<PublicKeys, 'ukSig'>): boolean {
  return a.userId === b.userId && a.ik === b.ik && a.ukEpoch === b.ukEpoch && a.uk === b.uk;
}

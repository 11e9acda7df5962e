/**
 * The account's keys in this browser after the password proved itself (docs/e2ee.md): a
 * new account makes its keys; a sign-in opens the bundle the server keeps; after a
 * password reset a browser that still holds the keys re-seals them under the new password,
 * and one that does not starts a new identity (the old bundle stays archived on the server
 * for an unlock with the old password). Every path ends with the
 * keys in this browser (local-keys.ts). The crypto package loads with the first call.
 */
import type { AccountStart, BundleContents, PublicKeys } from '@app/e2ee';
import type { PasswordKeys } from '@app/e2ee/kdf';
import {
  API,
  type ArchivedBundle,
  type IdentityWire,
  keysArchiveResponseSchema,
  type Me,
  MSG,
  type OwnKeys,
  ownKeysResponseSchema,
} from '@app/protocol';
import { ApiError, api } from '@/lib/api';
import { publicSettings } from '@/lib/public-settings';
import { DOWNGRADE_REFUSED, rememberEncrypted, seenEncrypted } from './known-logins';
import { loadLocalKeys, saveLocalKeys } from './local-keys';
import { derivePasswordKeys, newCredentials, prelogin } from './password-keys';

function publicPart(k: PublicKeys) {
  return { ik: k.ik, ukEpoch: k.ukEpoch, uk: k.uk, ukSig: k.ukSig };
}

/**
 * Seals `contents` under the password's wrap key as bundle `bundleVersion`, stores it
 * (and `identity`, a new one), keeps it here. Archived bundles named in `merged` are
 * deleted with it, which the password's `auth` confirms.
 */
export async function putKeys(
  userId: string,
  contents: BundleContents,
  password: PasswordKeys,
  bundleVersion: number,
  identity: PublicKeys | null,
  merged: number[] = [],
): Promise<void> {
  const { sealBundle } = await import('@app/e2ee');
  const bundle = await sealBundle(contents, password.wrapKey, userId, bundleVersion);
  await api(ownKeysResponseSchema, 'PUT', API.keys, {
    bundle,
    bundleVersion,
    ...(identity ? { keys: publicPart(identity) } : {}),
    ...(merged.length ? { merged, auth: password.auth } : {}),
  });
  await saveLocalKeys(userId, contents, bundleVersion);
}

/**
 * The server handed this browser an older bundle than the one it holds: a rollback (to
 * keys from before an unlock, say), refused. The browser keeps its own copy.
 */
export class KeysRolledBackError extends Error {
  override readonly name = 'KeysRolledBackError';
  constructor(served: number, held: number) {
    super(
      `The server sent older encryption keys (version ${served}) than this browser holds (version ${held}). They were refused; nothing was changed.`,
    );
  }
}

/**
 * When the account began with keys, for a bundle sealed before bundles said so: an account
 * made after this deployment's last message in the clear had none before encryption. Read
 * from the server this once (its first identity's time and the deployment's setting) and
 * sealed into the bundle from then on.
 */
async function startOf(user: Me, own: OwnKeys, known?: AccountStart): Promise<AccountStart> {
  // Deletions are sealed from now on (crypto/believable.ts): a bare one of a later message is not the sender's.
  if (known) return { ...known, tombstones: known.tombstones ?? Date.now() };
  const now = Date.now();
  const { e2eeSince } = await publicSettings();
  // The server's times, believed this once, but never past now: a start in the future would
  // make every text in the clear look as if it were from before.
  const at = Math.min(own.publicKeys.identities[0]?.since ?? now, now);
  return { at, legacy: e2eeSince !== null && user.createdAt <= Math.min(e2eeSince, now), tombstones: now };
}

/** A start made now: an account that gets its keys at this moment (`legacy`: it had messages before). */
function startNow(legacy: boolean): AccountStart {
  const at = Date.now();
  return { at, legacy, tombstones: at };
}

/** Whether a bundle says all of its start (BundleContents.started) yet. */
const startKnown = (c: BundleContents | null | undefined) => c?.started?.tombstones !== undefined;

/** The bundles sealed by a password from before a reset that no later bundle took in. */
export async function lockedArchive(): Promise<ArchivedBundle[]> {
  return (await api(keysArchiveResponseSchema, 'GET', API.keysArchive)).archived;
}

/**
 * The archived bundles whose every key `contents` holds: an archive sealed in identity
 * generation g holds the keys of generations up to g (merged ones included), so it is
 * covered when `contents` has each of those identities (`identities`: the account's, as
 * the server lists them). An archive whose generation is not listed is never covered:
 * only opening it tells what it holds.
 */
export function coveredBy(
  archive: readonly ArchivedBundle[],
  contents: BundleContents,
  identities: readonly IdentityWire[],
): number[] {
  const held = new Set([contents.ik.x, ...(contents.past ?? [])]);
  return archive
    .filter((a) => {
      const upTo = identities.filter((i) => i.idVersion <= a.idVersion);
      return upTo.some((i) => i.idVersion === a.idVersion) && upTo.every((i) => held.has(i.ik));
    })
    .map((a) => a.bundleVersion);
}

/**
 * Brings this browser's keys in line with what the server holds for `user` (see above),
 * `password` being what the password just derived. A copy here from an identity older than
 * the server's (this browser was used before a password reset that another browser
 * answered with new keys) is merged in, so the history before the reset is readable again
 * everywhere; the archived bundles it covers go.
 */
export async function settleKeys(
  user: Me,
  own: OwnKeys | null,
  password: PasswordKeys,
  opts: { newAccount?: boolean } = {},
): Promise<void> {
  await settle(user, own, password, opts.newAccount === true);
  // From now on this browser sends no password for this account (known-logins.ts).
  await rememberEncrypted(user.username, user.email);
}

/** The server says an account this browser has seen with keys has none: it is not believed. */
export const KEYS_DENIED =
  'The server says your account has no encryption keys, but this browser has seen it with keys. Nothing was changed.';

async function settle(user: Me, own: OwnKeys | null, password: PasswordKeys, newAccount: boolean): Promise<void> {
  const held = await loadLocalKeys(user.id);
  if (!own) {
    await firstKeys(user, held !== null, password, newAccount);
    return;
  }
  if (held && own.bundleVersion < held.bundleVersion) {
    throw new KeysRolledBackError(own.bundleVersion, held.bundleVersion);
  }
  const local = held?.contents ?? null;
  if (own.stale && !(await opensWith(user, own, password))) await settleStale(user, own, local, password);
  else await settleCurrent(user, own, local, password);
}

/**
 * Whether the account's bundle opens with this password: a bundle the server calls stale
 * (sealed by a password from before a reset) but that opens is not, and is not replaced by a
 * new identity (which would start the account's pins and verified marks again).
 */
async function opensWith(user: Me, own: OwnKeys, password: PasswordKeys): Promise<boolean> {
  const e2ee = await import('@app/e2ee');
  return e2ee.openBundle(own.bundle, password.wrapKey, user.id, own.bundleVersion).then(
    () => true,
    () => false,
  );
}

/**
 * An account's first keys. One just made has had nothing in the clear; one that existed
 * without keys (an imported one) may have. A server that denies keys this browser knows
 * of (`heldHere`, or a login seen with keys) is refused.
 */
async function firstKeys(user: Me, heldHere: boolean, password: PasswordKeys, newAccount: boolean): Promise<void> {
  if (!newAccount && (heldHere || (await seenEncrypted(user.username, user.email)))) throw new Error(KEYS_DENIED);
  const made = await (await import('@app/e2ee')).createAccount(user.id, 1, startNow(!newAccount));
  await putKeys(user.id, made.contents, password, 1, made.publicKeys);
}

/**
 * The account's bundle opened with the current password, with this browser's copy merged
 * in when it holds keys the bundle lacks, and its start filled in when it does not say it
 * yet; sealed again (the next version) when either changed anything.
 */
async function settleCurrent(user: Me, own: OwnKeys, local: BundleContents | null, password: PasswordKeys) {
  const e2ee = await import('@app/e2ee');
  const opened = await e2ee.openBundle(own.bundle, password.wrapKey, user.id, own.bundleVersion);
  const adds = local !== null && e2ee.bundleAdds(opened, local);
  if (!adds && startKnown(opened)) {
    await saveLocalKeys(user.id, opened, own.bundleVersion);
    return;
  }
  const merged = local && adds ? e2ee.mergeBundles(opened, local) : opened;
  if (!startKnown(merged)) {
    merged.started = startKnown(local) ? local?.started : await startOf(user, own, merged.started ?? local?.started);
  }
  try {
    const covered = adds ? coveredBy(await lockedArchive(), merged, own.publicKeys.identities) : [];
    await putKeys(user.id, merged, password, own.bundleVersion + 1, null, covered);
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 409)) throw e;
    // Another browser changed the keys meanwhile: use the merge here, put it next time.
    await saveLocalKeys(user.id, merged, own.bundleVersion);
  }
}

/**
 * The bundle is still sealed by a password from before a reset: this browser's copy, when
 * it is of the current identity, is sealed again; otherwise a new identity, with this
 * copy's keys merged in when there is one.
 */
async function settleStale(
  user: Me,
  own: OwnKeys,
  local: BundleContents | null,
  password: PasswordKeys,
): Promise<void> {
  const e2ee = await import('@app/e2ee');
  const next = own.bundleVersion + 1;
  const covered = async (contents: BundleContents) =>
    coveredBy(await lockedArchive(), contents, own.publicKeys.identities);
  const started = startKnown(local) ? (local?.started as AccountStart) : await startOf(user, own, local?.started);
  if (local && local.ik.x === own.publicKeys.ik) {
    await putKeys(user.id, { ...local, started }, password, next, null, await covered(local));
    return;
  }
  const made = await e2ee.createAccount(user.id, own.publicKeys.ukEpoch + 1, started);
  if (!local) {
    await putKeys(user.id, made.contents, password, next, made.publicKeys);
    return;
  }
  await putKeys(
    user.id,
    e2ee.mergeBundles(made.contents, local),
    password,
    next,
    made.publicKeys,
    await covered(local),
  );
}

/**
 * An account from before end-to-end encryption, just signed in with its password: its
 * first credentials and keys (the password reaches the server this one last time; never
 * for an account this browser has seen with keys).
 */
export async function upgradeLegacy(user: Me, password: string): Promise<PasswordKeys> {
  // A server that says an account with keys has none wants the password: never sent, not
  // for a login seen with keys here, nor by a browser holding the account's keys.
  if ((await loadLocalKeys(user.id)) || (await seenEncrypted(user.username, user.email))) {
    throw new Error(DOWNGRADE_REFUSED);
  }
  const [{ credentials, keys }, e2ee] = await Promise.all([newCredentials(password), import('@app/e2ee')]);
  const made = await e2ee.createAccount(user.id, 1, startNow(true));
  const bundle = await e2ee.sealBundle(made.contents, keys.wrapKey, user.id, 1);
  await api(ownKeysResponseSchema, 'POST', API.upgradeAuth, {
    password,
    credentials,
    keys: { ...publicPart(made.publicKeys), bundle },
  });
  await saveLocalKeys(user.id, made.contents, 1);
  await rememberEncrypted(user.username, user.email);
  return keys;
}

/**
 * The signed-in user's `auth` and wrap key for `password`, to confirm a change (e-mail,
 * password, PIN). A legacy account is upgraded on the way.
 */
export async function reauth(user: Me, password: string): Promise<PasswordKeys> {
  const pre = await prelogin(user.username);
  if (!('salt' in pre)) return upgradeLegacy(user, password);
  return derivePasswordKeys(password, pre.salt, pre.kdf);
}

/**
 * The body of a password change: the current `auth`, new credentials, and the same keys
 * re-sealed under the new password (so the history stays readable).
 */
export async function passwordChange(user: Me, current: string, next: string) {
  const now = await reauth(user, current);
  let own = (await api(ownKeysResponseSchema, 'GET', API.keys)).keys;
  if (!own) {
    await settleKeys(user, null, now);
    own = (await api(ownKeysResponseSchema, 'GET', API.keys)).keys;
  }
  if (!own) throw new Error('Your keys could not be set up. Please try again.');
  const e2ee = await import('@app/e2ee');
  const held = await loadLocalKeys(user.id);
  if (held && own.bundleVersion < held.bundleVersion)
    throw new KeysRolledBackError(own.bundleVersion, held.bundleVersion);
  // A wrong current password does not open the bundle: say so as the server would.
  const opened = await e2ee.openBundle(own.bundle, now.wrapKey, user.id, own.bundleVersion).catch(() => {
    throw new ApiError(403, { error: 'wrong_password', message: MSG.wrongPassword });
  });
  // Keys this browser holds that the bundle lacks (unlocked here) are sealed with the rest.
  const contents = held && e2ee.bundleAdds(opened, held.contents) ? e2ee.mergeBundles(opened, held.contents) : opened;
  const { credentials, keys } = await newCredentials(next);
  const bundleVersion = own.bundleVersion + 1;
  const bundle = await e2ee.sealBundle(contents, keys.wrapKey, user.id, bundleVersion);
  return { body: { auth: now.auth, credentials, bundle, bundleVersion }, contents };
}

/**
 * The account's keys in this browser after the password proved itself (design e2ee.md
 * 2.3, 2.5, 2.10): a new account makes its keys; a sign-in opens the bundle the server
 * keeps; after a password reset a browser that still holds the keys re-seals them under
 * the new password, and one that does not starts a new identity (the old bundle stays
 * archived on the server for an unlock with the old password). Every path ends with the
 * keys in this browser (local-keys.ts). The crypto package loads with the first call.
 */
import type { BundleContents, PublicKeys } from '@app/e2ee';
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
import { ApiError, api } from '../api';
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
  await saveLocalKeys(userId, contents);
}

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
export async function settleKeys(user: Me, own: OwnKeys | null, password: PasswordKeys): Promise<void> {
  const e2ee = await import('@app/e2ee');
  if (!own) {
    const made = await e2ee.createAccount(user.id);
    await putKeys(user.id, made.contents, password, 1, made.publicKeys);
    return;
  }
  const local = await loadLocalKeys(user.id);
  const next = own.bundleVersion + 1;
  const covered = async (contents: BundleContents) =>
    coveredBy(await lockedArchive(), contents, own.publicKeys.identities);
  if (own.stale) {
    if (local && local.ik.x === own.publicKeys.ik) {
      await putKeys(user.id, local, password, next, null, await covered(local));
      return;
    }
    const made = await e2ee.createAccount(user.id, own.publicKeys.ukEpoch + 1);
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
    return;
  }
  const opened = await e2ee.openBundle(own.bundle, password.wrapKey, user.id, own.bundleVersion);
  if (local && e2ee.bundleAdds(opened, local)) {
    const merged = e2ee.mergeBundles(opened, local);
    try {
      await putKeys(user.id, merged, password, next, null, await covered(merged));
      return;
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 409)) throw e;
      // Another browser changed the keys meanwhile: use the merge here, put it next time.
      await saveLocalKeys(user.id, merged);
      return;
    }
  }
  await saveLocalKeys(user.id, opened);
}

/**
 * An account from before end-to-end encryption, just signed in with its password: its
 * first credentials and keys (the password reaches the server this one last time).
 */
export async function upgradeLegacy(user: Me, password: string): Promise<PasswordKeys> {
  const [{ credentials, keys }, e2ee] = await Promise.all([newCredentials(password), import('@app/e2ee')]);
  const made = await e2ee.createAccount(user.id);
  const bundle = await e2ee.sealBundle(made.contents, keys.wrapKey, user.id, 1);
  await api(ownKeysResponseSchema, 'POST', API.upgradeAuth, {
    password,
    credentials,
    keys: { ...publicPart(made.publicKeys), bundle },
  });
  await saveLocalKeys(user.id, made.contents);
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
  // A wrong current password does not open the bundle: say so as the server would.
  const contents = await e2ee.openBundle(own.bundle, now.wrapKey, user.id, own.bundleVersion).catch(() => {
    throw new ApiError(403, { error: 'wrong_password', message: MSG.wrongPassword });
  });
  const { credentials, keys } = await newCredentials(next);
  const bundleVersion = own.bundleVersion + 1;
  const bundle = await e2ee.sealBundle(contents, keys.wrapKey, user.id, bundleVersion);
  return { body: { auth: now.auth, credentials, bundle, bundleVersion }, contents };
}

/**
 * Keys this browser lacks (docs/e2ee.md): history locked by a password reset, or
 * this browser behind the account. A reset answered by a browser without the keys starts
 * a new identity; the old keys stay on the server in a bundle sealed by the old password,
 * which opens it here, while the current one seals the merged keys (the new identity and
 * every earlier encryption key) for every browser. A browser whose copy is missing, or
 * older than what another browser unlocked, opens the account's bundle again with the
 * current password.
 */
import type { BundleContents } from '@app/e2ee';
import { API, type ArchivedBundle, type Me, MSG, ownKeysResponseSchema, recoveryResponseSchema } from '@app/protocol';
import { ApiError, api } from '@/lib/api';
import { coveredBy, lockedArchive, putKeys, reauth, settleKeys } from './account-keys';
import { loadLocalKeys } from './local-keys';
import { derivePasswordKeys, prelogin } from './password-keys';
import { RECOVERY_VERSION } from './recovery';

const SIGN_IN_AGAIN = 'Sign out and sign in again to unlock your messages.';

function wrongPassword(message: string = MSG.wrongPassword): ApiError {
  return new ApiError(403, { error: 'wrong_password', message });
}

/**
 * What an old password or the recovery key opens of what is locked: the contents, and
 * the archived bundles opened (by version). Nothing: it opens nothing.
 */
async function openLocked(
  user: Me,
  archive: ArchivedBundle[],
  secret: string,
): Promise<{ contents: BundleContents[]; opened: number[] }> {
  const e2ee = await import('@app/e2ee');
  const recoveryKey = await e2ee.parseRecoveryKey(secret);
  if (recoveryKey) {
    const r = (await api(recoveryResponseSchema, 'GET', API.keysRecovery)).recovery;
    const wrap = await e2ee.recoveryWrapKey(recoveryKey);
    const contents = r ? await e2ee.openBundle(r.bundle, wrap, user.id, RECOVERY_VERSION).catch(() => null) : null;
    return { contents: contents ? [contents] : [], opened: [] };
  }
  // Each salt is one earlier password: derive once per salt.
  const out = { contents: [] as BundleContents[], opened: [] as number[] };
  const bySalt = new Map<string, ArchivedBundle[]>();
  for (const a of archive) bySalt.set(a.salt, [...(bySalt.get(a.salt) ?? []), a]);
  for (const entries of bySalt.values()) {
    const first = entries[0];
    if (!first) continue;
    const old = await derivePasswordKeys(secret, first.salt, first.kdf);
    for (const a of entries) {
      const opened = await e2ee.openBundle(a.bundle, old.wrapKey, user.id, a.bundleVersion).catch(() => null);
      if (opened) {
        out.contents.push(opened);
        out.opened.push(a.bundleVersion);
      }
    }
  }
  return out;
}

/**
 * Unlocks the history from before a reset with `oldSecret`: any earlier password that
 * sealed an archived bundle, or the recovery key; `currentPassword` seals the result.
 * Returns how many archived bundles were brought back (0: nothing was locked).
 */
export async function unlockHistory(user: Me, oldSecret: string, currentPassword: string): Promise<number> {
  const archive = await lockedArchive();
  if (archive.length === 0) return 0;
  const e2ee = await import('@app/e2ee');
  const now = await reauth(user, currentPassword);
  const own = (await api(ownKeysResponseSchema, 'GET', API.keys)).keys;
  if (!own || own.stale) throw new ApiError(409, { error: 'conflict', message: SIGN_IN_AGAIN });
  const current = await e2ee
    .openBundle(own.bundle, now.wrapKey, user.id, own.bundleVersion)
    .catch(() => Promise.reject(wrongPassword()));
  const unlocked = await openLocked(user, archive, oldSecret);
  const contents = unlocked.contents.reduce((all, c) => e2ee.mergeBundles(all, c), current);
  const merged = [...new Set([...unlocked.opened, ...coveredBy(archive, contents, own.publicKeys.identities)])];
  if (merged.length === 0) {
    // The recovery key opened its bundle, but that holds nothing locked (it was made after the reset).
    if (unlocked.contents.length > 0) throw wrongPassword('This recovery key holds none of the locked messages');
    throw wrongPassword('The old password or recovery key is incorrect');
  }
  await putKeys(user.id, contents, now, own.bundleVersion + 1, null, merged);
  return merged.length;
}

/**
 * - `locked`: history from before a reset is sealed by an old password;
 * - `nokeys`: this browser holds no copy of the keys (signed in before it kept one, or storage cleared);
 * - `behind`: another browser brought back keys this copy lacks (or the identity changed);
 * - `legacy`: an account from before end-to-end encryption, signed in since before it: no keys yet.
 */
export type KeyStatus = 'ok' | 'locked' | 'nokeys' | 'behind' | 'legacy';

export async function keyStatus(user: Me): Promise<KeyStatus> {
  const [here, archive, own] = await Promise.all([
    loadLocalKeys(user.id),
    lockedArchive(),
    api(ownKeysResponseSchema, 'GET', API.keys),
  ]);
  const local = here?.contents;
  if (!own.keys) {
    // The server says the account has no keys: believed only by a browser that holds none
    // (one that does is never asked for the password: account-keys.ts upgradeLegacy).
    if (local) return 'ok';
    const pre = await prelogin(user.username);
    return 'salt' in pre ? 'ok' : 'legacy';
  }
  if (!local) return 'nokeys';
  if (archive.length > 0) return 'locked';
  const held = new Set([local.ik.x, ...(local.past ?? [])]);
  // Every earlier identity is either locked (archived) or merged into the account's bundle.
  const missing = own.keys.publicKeys.identities.some((i) => !held.has(i.ik));
  return missing ? 'behind' : 'ok';
}

/** Opens the account's bundle with the current password and keeps it here (merged with this copy). */
export async function unlockThisBrowser(user: Me, password: string): Promise<void> {
  const keys = await reauth(user, password);
  const own = (await api(ownKeysResponseSchema, 'GET', API.keys)).keys;
  // Nothing to open, or sealed by a password this one cannot be checked against: a sign-in settles it.
  if (!own || own.stale) throw new ApiError(409, { error: 'conflict', message: SIGN_IN_AGAIN });
  await settleKeys(user, own, keys).catch((e) => {
    throw e instanceof ApiError ? e : wrongPassword(MSG.invalidCredentials);
  });
}

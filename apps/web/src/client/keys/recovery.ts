/**
 * The optional recovery key (docs/e2ee.md): made in this browser from the account's
 * keys (opened with the password that confirms it), shown once, and stored on the server only as the keys sealed under it; after a
 * password reset it unlocks what the old password would have (locked-history.ts).
 */
import { API, type Me, MSG, noContentSchema, ownKeysResponseSchema, recoveryResponseSchema } from '@app/protocol';
import { ApiError, api } from '@/lib/api';
import { reauth } from './account-keys';

/** The bundle version a recovery bundle is sealed as (it has its own key; the version is not used). */
export const RECOVERY_VERSION = 0;

export async function recoveryCreatedAt(): Promise<number | null> {
  return (await api(recoveryResponseSchema, 'GET', API.keysRecovery)).recovery?.createdAt ?? null;
}

/** Makes a new recovery key (replacing any earlier one) after `password` confirms it; returns the text to show once. */
export async function createRecoveryKey(user: Me, password: string): Promise<string> {
  const [e2ee, keys, own] = await Promise.all([
    import('@app/e2ee'),
    reauth(user, password),
    api(ownKeysResponseSchema, 'GET', API.keys),
  ]);
  const { auth, wrapKey } = keys;
  // The account's keys as the server holds them (this browser's copy may be behind another's unlock).
  if (!own.keys || own.keys.stale) throw new Error('Sign out and sign in again first.');
  const contents = await e2ee.openBundle(own.keys.bundle, wrapKey, user.id, own.keys.bundleVersion).catch(() => {
    throw new ApiError(403, { error: 'wrong_password', message: MSG.wrongPassword });
  });
  const { key, text } = await e2ee.newRecoveryKey();
  const bundle = await e2ee.sealBundle(contents, await e2ee.recoveryWrapKey(key), user.id, RECOVERY_VERSION);
  await api(noContentSchema, 'PUT', API.keysRecovery, { auth, bundle });
  return text;
}

export async function removeRecoveryKey(user: Me, password: string): Promise<void> {
  const { auth } = await reauth(user, password);
  await api(noContentSchema, 'DELETE', API.keysRecovery, { auth });
}

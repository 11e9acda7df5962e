/**
 * The optional recovery key (design e2ee.md 2.5): made in this browser from its copy of
 * the keys, shown once, and stored on the server only as the keys sealed under it; after a
 * password reset it unlocks what the old password would have (locked-history.ts).
 */
import { API, type Me, noContentSchema, recoveryResponseSchema } from '@app/protocol';
import { api } from '../api';
import { reauth } from './account-keys';
import { loadLocalKeys } from './local-keys';

/** The bundle version a recovery bundle is sealed as (it has its own key; the version is not used). */
export const RECOVERY_VERSION = 0;

export async function recoveryCreatedAt(): Promise<number | null> {
  return (await api(recoveryResponseSchema, 'GET', API.keysRecovery)).recovery?.createdAt ?? null;
}

/** Makes a new recovery key (replacing any earlier one) after `password` confirms it; returns the text to show once. */
export async function createRecoveryKey(user: Me, password: string): Promise<string> {
  const contents = await loadLocalKeys(user.id);
  if (!contents) throw new Error('This browser does not hold your keys: unlock them first.');
  const [e2ee, { auth }] = await Promise.all([import('@app/e2ee'), reauth(user, password)]);
  const { key, text } = await e2ee.newRecoveryKey();
  const bundle = await e2ee.sealBundle(contents, await e2ee.recoveryWrapKey(key), user.id, RECOVERY_VERSION);
  await api(noContentSchema, 'PUT', API.keysRecovery, { auth, bundle });
  return text;
}

export async function removeRecoveryKey(user: Me, password: string): Promise<void> {
  const { auth } = await reauth(user, password);
  await api(noContentSchema, 'DELETE', API.keysRecovery, { auth });
}

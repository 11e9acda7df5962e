import { wipeDrafts } from './draft-hooks';
import { wipeLocalKeys } from './keys/local-keys';

/**
 * Deletes what this browser keeps for the signed-in user (sign-out, account deletion):
 * the drafts, then the keys (without which the outbox's sealed messages cannot be read).
 */
export async function wipeLocalData(): Promise<void> {
  await wipeDrafts();
  await wipeLocalKeys();
}

import { wipeDrafts } from './draft-hooks';
import { wipeLocalKeys } from './keys/local-keys';

/** Ends this browser's push subscription at the push service (the server drops its copy with the session). */
async function endPushSubscription(): Promise<void> {
  if (!('serviceWorker' in navigator)) return;
  try {
    const reg = await navigator.serviceWorker.getRegistration();
    await (await reg?.pushManager?.getSubscription())?.unsubscribe();
  } catch {
    // No worker or no push service reachable: the server's copy is gone anyway.
  }
}

/**
 * Deletes what this browser keeps for the signed-in user (sign-out, account deletion):
 * the push subscription, the drafts, then the keys (without which the outbox's sealed
 * messages cannot be read).
 */
export async function wipeLocalData(): Promise<void> {
  await endPushSubscription();
  await wipeDrafts();
  await wipeLocalKeys();
}

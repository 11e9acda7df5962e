import { setKeepsAtRest } from '@/lib/at-rest';
import { wipeRecentEmoji } from '@/lib/emoji-recents';
import { getChatClient } from './chat-client-singleton';
import { wipeRevisions } from './crypto/revisions';
import { wipeDrafts } from './drafts/drafts-singleton';
import { wipeLocalKeys } from './keys/local-keys';
import { wipeOutbox } from './outbox/outbox-store';
import { wipeSearchIndex } from './search/search-store';

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
 * the push subscription, the drafts, the waiting messages, the search index, the recent emoji, then the keys, and forgets
 * whether the session kept them at rest. IndexedDB deletes the records; pieces of them may
 * stay in the profile's files on disk until the browser compacts them, which a page cannot
 * force (docs/threat-model.md says what that leaves).
 */
export async function wipeLocalData(): Promise<void> {
  // Nothing indexed, nor written back, after this.
  getChatClient()?.search.stop();
  await endPushSubscription();
  await wipeDrafts();
  await wipeOutbox();
  await wipeSearchIndex();
  wipeRecentEmoji();
  await wipeRevisions();
  await wipeLocalKeys();
  setKeepsAtRest(null);
}

/**
 * The drafts of the signed-in user (drafts.ts), made when they sign in and dropped when
 * they sign out, as chat-client-singleton.ts does for the ChatClient; React's view of them
 * is draft-hooks.ts, on the UI side. Written at once when the page is hidden or left.
 */
import { getSession, subscribeSession } from '@/lib/session';
import { browserSealing } from '../keys/local-keys';
import { outboxHolds } from '../outbox/outbox-store';
import { indexedDbDrafts, wipeDraftStore } from './draft-store';
import { Drafts } from './drafts';

let current: Drafts | null = null;
const listeners = new Set<() => void>();

function emit(): void {
  for (const l of [...listeners]) l();
}

function sync(): void {
  const userId = getSession().user?.id ?? null;
  if (current?.userId === userId) return;
  void current?.stop();
  current = userId ? new Drafts(userId, indexedDbDrafts, browserSealing, outboxHolds) : null;
  if (current) {
    current.subscribe(emit);
    void current.load();
  }
  emit();
}

/** The signed-in user's drafts (null when signed out). */
export function getDrafts(): Drafts | null {
  return current;
}

/** Deletes every draft of this browser (sign-out, account deletion): in memory first, then at rest. */
export async function wipeDrafts(): Promise<void> {
  await current?.stop();
  await wipeDraftStore();
}

/** Calls `listener` when the drafts change, or are replaced (another user, or none). */
export function subscribeDrafts(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

if (typeof document !== 'undefined') {
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') void current?.flushAll();
  });
  window.addEventListener('pagehide', () => void current?.flushAll());
}
subscribeSession(sync);
sync();

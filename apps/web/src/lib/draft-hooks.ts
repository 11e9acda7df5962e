/**
 * The drafts of the signed-in user (lib/drafts.ts), made when they sign in and dropped when
 * they sign out, and React's view of them. Written at once when the page is hidden or left.
 */
import { useSyncExternalStore } from 'react';
import { indexedDbDrafts, wipeDraftStore } from './draft-store';
import { Drafts } from './drafts';
import { openLocal, sealLocal } from './keys/local-keys';
import { getSession, subscribeSession } from './session';

let current: Drafts | null = null;
const listeners = new Set<() => void>();

function emit(): void {
  for (const l of [...listeners]) l();
}

function sync(): void {
  const userId = getSession().user?.id ?? null;
  if (current?.userId === userId) return;
  void current?.stop();
  current = userId ? new Drafts(userId, indexedDbDrafts, { seal: sealLocal, open: openLocal }) : null;
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

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useDrafts(): Drafts | null {
  return useSyncExternalStore(subscribe, getDrafts, getDrafts);
}

/** The draft of the chat with `peerId` ('' when there is none). */
export function useDraftText(peerId: string): string {
  const get = () => current?.get(peerId) ?? '';
  return useSyncExternalStore(subscribe, get, get);
}

/** Whether the drafts at rest have been read (the composer restores its draft then). */
export function useDraftsLoaded(): boolean {
  const get = () => current?.loaded ?? false;
  return useSyncExternalStore(subscribe, get, get);
}

if (typeof document !== 'undefined') {
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') void current?.flushAll();
  });
  window.addEventListener('pagehide', () => void current?.flushAll());
}
subscribeSession(sync);
sync();

/** React's view of the signed-in user's drafts (client/drafts/drafts-singleton.ts). */
import { useSyncExternalStore } from 'react';
import type { Drafts } from '@/client/drafts/drafts';
import { getDrafts, subscribeDrafts } from '@/client/drafts/drafts-singleton';

export function useDrafts(): Drafts | null {
  return useSyncExternalStore(subscribeDrafts, getDrafts, getDrafts);
}

/** The draft of the chat with `peerId` ('' when there is none). */
export function useDraftText(peerId: string): string {
  const get = () => getDrafts()?.get(peerId) ?? '';
  return useSyncExternalStore(subscribeDrafts, get, get);
}

/** Whether the drafts at rest have been read (the composer restores its draft then). */
export function useDraftsLoaded(): boolean {
  const get = () => getDrafts()?.loaded ?? false;
  return useSyncExternalStore(subscribeDrafts, get, get);
}

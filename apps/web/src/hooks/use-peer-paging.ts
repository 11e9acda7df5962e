/** Paging the conversation a screen shows, bound to its peer (ChatClient.paging). */
import { useMemo } from 'react';
import type { ChatClient } from '@/client/chat-client';

export interface PeerPaging {
  /** The page before the oldest loaded message. */
  older(): void;
  /** The page after the newest loaded one, in a window far back. */
  newer(): void;
  /** Back to the newest messages from a window far back. */
  newest(): void;
  /** Loads the page around a message (ChatClient.paging.loadAround). */
  around(msgId: string): Promise<'found' | 'missing'>;
}

export function usePeerPaging(client: ChatClient | null, peerId: string): PeerPaging {
  return useMemo(
    () => ({
      older: () => void client?.paging.loadOlder(peerId),
      newer: () => void client?.paging.loadNewer(peerId),
      newest: () => client?.paging.showNewest(peerId),
      around: (msgId) => (client ? client.paging.loadAround(peerId, msgId) : Promise.reject(new Error('Offline'))),
    }),
    [client, peerId],
  );
}

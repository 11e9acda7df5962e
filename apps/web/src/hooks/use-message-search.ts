/**
 * Searching this browser's messages (client/search/message-search.ts) from a screen: the
 * hits for a query (in one chat, or in every chat shown on the list), again as the index
 * grows, and the background indexing's state.
 */
import { useMemo } from 'react';
import type { SearchStatus } from '@/client/search/message-search';
import type { SearchHit } from '@/client/search/search-index';
import { useChatClient, useClientValue } from './chat-hooks';
import { useDebouncedValue } from './use-debounced-value';

const NO_HITS: SearchHit[] = [];
const IDLE: SearchStatus = { indexing: false, paused: false, done: 0, total: 0 };

/** Hits for `query` (after a short pause in typing), newest first; none for a blank query. */
export function useMessageSearch(query: string, chatId?: string, limit = 50): SearchHit[] {
  const client = useChatClient();
  const settled = useDebouncedValue(query.trim(), 150);
  const version = useClientValue((c) => c.search.index.version, 0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: searched again whenever the index changed
  return useMemo(() => {
    if (!client || !settled) return NO_HITS;
    return client.search.search(settled, chatId === undefined ? { limit } : { chatId, limit });
  }, [client, settled, chatId, limit, version]);
}

export function useSearchStatus(): SearchStatus {
  return useClientValue((c) => c.search.getStatus(), IDLE);
}

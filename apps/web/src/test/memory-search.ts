import type { SearchStore } from '@/client/search/search-store';

/** A SearchStore in memory (IndexedDB does not exist in Node), holding copies as IndexedDB would. */
export function memorySearch() {
  const rows = new Map<string, unknown>();
  const store: SearchStore = {
    list: async (userId) => [...rows.values()].filter((r) => (r as { userId?: string }).userId === userId),
    put: async (r) => {
      rows.set(r.key, structuredClone(r));
    },
  };
  return { rows, store };
}

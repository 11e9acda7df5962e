import type { OutboxStore } from '@/client/outbox/outbox-store';

/** An OutboxStore in memory (IndexedDB does not exist in Node), holding copies as IndexedDB would. */
export function memoryOutbox(initial: readonly unknown[] = []) {
  const rows = new Map<string, unknown>();
  initial.forEach((r, i) => {
    rows.set(String((r as { msgId?: unknown } | null)?.msgId ?? `raw-${i}`), r);
  });
  const store: OutboxStore = {
    put: async (e) => {
      rows.set(e.msgId, structuredClone(e));
    },
    remove: async (id) => {
      rows.delete(id);
    },
    list: async () => [...rows.values()],
  };
  return { rows, store };
}

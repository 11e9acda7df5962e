/**
 * The drafts at rest: IndexedDB database 'parley-drafts', store 'drafts' keyed by
 * `${userId}:${peerId}` with an index on userId, opened once as the outbox opens its own.
 * Where IndexedDB is unavailable, nothing is stored (the drafts live in memory). Signing
 * out deletes the database (wipeDraftStore).
 */

import { OneStoreDb } from '@/lib/idb';
import type { DraftStore } from './drafts';

const drafts = new OneStoreDb('parley-drafts', 'drafts', 'id');
export const indexedDbDrafts: DraftStore = {
  list: (userId) => drafts.listFor(userId),
  put: (record) => drafts.put(record),
  remove: (id) => drafts.remove(id),
};

/** Deletes every draft this browser holds (sign-out). */
export function wipeDraftStore(): Promise<void> {
  return drafts.wipe();
}

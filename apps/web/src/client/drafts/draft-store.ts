/**
 * The drafts at rest: IndexedDB database 'parley-drafts', store 'drafts' keyed by
 * `${userId}:${peerId}` with an index on userId, opened once as the outbox opens its own.
 * Where IndexedDB is unavailable, nothing is stored (the drafts live in memory). Signing
 * out deletes the database (wipeDraftStore).
 */

import { OneStoreDb, txDone } from '@/lib/idb';
import type { DraftRecord, DraftStore } from './drafts';

const drafts = new OneStoreDb('parley-drafts', 'drafts', 'id');
const STORE = drafts.store;

async function list(userId: string): Promise<readonly unknown[]> {
  const db = await drafts.open();
  if (!db) return [];
  const tx = db.transaction(STORE, 'readonly');
  const req = tx.objectStore(STORE).index('userId').getAll(userId);
  await txDone(tx);
  return req.result as unknown[];
}

async function put(record: DraftRecord): Promise<void> {
  const db = await drafts.open();
  if (!db) return;
  const tx = db.transaction(STORE, 'readwrite');
  tx.objectStore(STORE).put(record);
  await txDone(tx);
}

async function remove(id: string): Promise<void> {
  const db = await drafts.open();
  if (!db) return;
  const tx = db.transaction(STORE, 'readwrite');
  tx.objectStore(STORE).delete(id);
  await txDone(tx);
}

export const indexedDbDrafts: DraftStore = { list, put, remove };

/** Deletes every draft this browser holds (sign-out). */
export function wipeDraftStore(): Promise<void> {
  return drafts.wipe();
}

/**
 * The drafts at rest: IndexedDB database 'parley-drafts', store 'drafts' keyed by
 * `${userId}:${peerId}` with an index on userId, opened once as the outbox opens its own.
 * Where IndexedDB is unavailable, nothing is stored (the drafts live in memory). Signing
 * out deletes the database (wipeDraftStore).
 */
import type { DraftRecord, DraftStore } from './drafts';
import { openIdb, txDone } from './idb';

const DB_NAME = 'parley-drafts';
const STORE = 'drafts';

let opening: Promise<IDBDatabase | null> | null = null;

function open(): Promise<IDBDatabase | null> {
  opening ??= openIdb(DB_NAME, 1, (db) => {
    if (!db.objectStoreNames.contains(STORE)) {
      db.createObjectStore(STORE, { keyPath: 'id' }).createIndex('userId', 'userId');
    }
  }).then((db) => {
    // Another tab upgrading, or a sign-out deleting it: let it, and reopen next time.
    if (db) {
      db.onversionchange = () => {
        db.close();
        opening = null;
      };
    }
    return db;
  });
  return opening;
}

async function list(userId: string): Promise<readonly unknown[]> {
  const db = await open();
  if (!db) return [];
  const tx = db.transaction(STORE, 'readonly');
  const req = tx.objectStore(STORE).index('userId').getAll(userId);
  await txDone(tx);
  return req.result as unknown[];
}

async function put(record: DraftRecord): Promise<void> {
  const db = await open();
  if (!db) return;
  const tx = db.transaction(STORE, 'readwrite');
  tx.objectStore(STORE).put(record);
  await txDone(tx);
}

async function remove(id: string): Promise<void> {
  const db = await open();
  if (!db) return;
  const tx = db.transaction(STORE, 'readwrite');
  tx.objectStore(STORE).delete(id);
  await txDone(tx);
}

export const indexedDbDrafts: DraftStore = { list, put, remove };

/** Deletes every draft this browser holds (sign-out). */
export async function wipeDraftStore(): Promise<void> {
  if (typeof indexedDB === 'undefined') return;
  const db = await opening;
  db?.close();
  opening = null;
  await new Promise<void>((resolve) => {
    const req = indexedDB.deleteDatabase(DB_NAME);
    req.onsuccess = () => resolve();
    req.onerror = () => resolve();
    // Another tab holds it open: it closes on versionchange; the deletion completes then.
    req.onblocked = () => resolve();
  });
}

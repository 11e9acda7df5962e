/**
 * Messages typed but not yet acknowledged by the server, kept in IndexedDB
 * (database 'parley', store 'outbox', keyed by msgId) so that neither a dropped
 * connection nor a page reload loses them. Where IndexedDB is unavailable
 * (some private modes), a memory map stands in for this page's lifetime.
 */

export interface OutboxEntry {
  msgId: string;
  /** The recipient's user id. */
  to: string;
  text: string;
  createdAt: number;
  /** The sender: only this user's session sends it. */
  userId: string;
}

const DB_NAME = 'parley';
const STORE = 'outbox';

let opening: Promise<IDBDatabase | null> | null = null;
const memory = new Map<string, OutboxEntry>();

function open(): Promise<IDBDatabase | null> {
  opening ??= new Promise<IDBDatabase | null>((resolve) => {
    if (typeof indexedDB === 'undefined') {
      resolve(null);
      return;
    }
    let req: IDBOpenDBRequest;
    try {
      req = indexedDB.open(DB_NAME, 1);
    } catch {
      resolve(null);
      return;
    }
    req.onupgradeneeded = () => {
      const db = req.result;
      if (!db.objectStoreNames.contains(STORE)) {
        db.createObjectStore(STORE, { keyPath: 'msgId' }).createIndex('userId', 'userId');
      }
    };
    req.onsuccess = () => {
      const db = req.result;
      // Another tab upgrading the schema: let it, and reopen next time.
      db.onversionchange = () => {
        db.close();
        opening = null;
      };
      resolve(db);
    };
    req.onerror = () => resolve(null);
    req.onblocked = () => resolve(null);
  });
  return opening;
}

function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });
}

/** Stores an entry; resolves once it is durable. */
export async function putOutbox(entry: OutboxEntry): Promise<void> {
  const db = await open();
  if (!db) {
    memory.set(entry.msgId, entry);
    return;
  }
  const tx = db.transaction(STORE, 'readwrite');
  tx.objectStore(STORE).put(entry);
  await done(tx);
}

export async function removeOutbox(msgId: string): Promise<void> {
  memory.delete(msgId);
  const db = await open();
  if (!db) return;
  const tx = db.transaction(STORE, 'readwrite');
  tx.objectStore(STORE).delete(msgId);
  await done(tx);
}

/** This user's waiting messages, oldest first. */
export async function listOutbox(userId: string): Promise<OutboxEntry[]> {
  const db = await open();
  let entries: OutboxEntry[];
  if (!db) {
    entries = [...memory.values()].filter((e) => e.userId === userId);
  } else {
    const tx = db.transaction(STORE, 'readonly');
    const req = tx.objectStore(STORE).index('userId').getAll(userId);
    await done(tx);
    entries = req.result as OutboxEntry[];
  }
  return entries.sort((a, b) => a.createdAt - b.createdAt);
}

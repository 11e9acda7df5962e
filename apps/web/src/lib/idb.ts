import { keepsAtRest } from './at-rest';

/**
 * The few IndexedDB steps the app's stores share: opening a database (null where
 * IndexedDB is unavailable, as in some private modes), and a transaction or request as a
 * promise.
 */
export function openIdb(
  name: string,
  version: number,
  upgrade: (db: IDBDatabase) => void,
): Promise<IDBDatabase | null> {
  return new Promise<IDBDatabase | null>((resolve) => {
    if (typeof indexedDB === 'undefined') {
      resolve(null);
      return;
    }
    let req: IDBOpenDBRequest;
    try {
      req = indexedDB.open(name, version);
    } catch {
      resolve(null);
      return;
    }
    req.onupgradeneeded = () => upgrade(req.result);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => resolve(null);
    req.onblocked = () => resolve(null);
  });
}

/** Resolves when the transaction commits; rejects when it fails or aborts. */
export function txDone(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });
}

/**
 * A database holding one object store of per-user records (keyed by `keyPath`, indexed
 * by userId): opened once, let go when another tab upgrades or deletes it (and reopened
 * on the next use), and deleted whole at sign-out. Not opened at all (null, as without
 * IndexedDB) while the session keeps nothing at rest (at-rest.ts).
 */
export class OneStoreDb {
  readonly name: string;
  readonly store: string;
  private readonly keyPath: string;
  private opening: Promise<IDBDatabase | null> | null = null;

  constructor(name: string, store: string, keyPath: string) {
    this.name = name;
    this.store = store;
    this.keyPath = keyPath;
  }

  open(): Promise<IDBDatabase | null> {
    if (!keepsAtRest()) return Promise.resolve(null);
    this.opening ??= openIdb(this.name, 1, (db) => {
      if (!db.objectStoreNames.contains(this.store)) {
        db.createObjectStore(this.store, { keyPath: this.keyPath }).createIndex('userId', 'userId');
      }
    }).then((db) => {
      if (db) {
        db.onversionchange = () => {
          db.close();
          this.opening = null;
        };
      }
      return db;
    });
    return this.opening;
  }

  /** The records of `userId`, as stored (unparsed); none where nothing is kept at rest. */
  async listFor(userId: string): Promise<readonly unknown[]> {
    const db = await this.open();
    if (!db) return [];
    const tx = db.transaction(this.store, 'readonly');
    const req = tx.objectStore(this.store).index('userId').getAll(userId);
    await txDone(tx);
    return req.result as unknown[];
  }

  /** Stores (or replaces) a record; resolves once it is durable. */
  async put(record: { userId: string }): Promise<void> {
    const db = await this.open();
    if (!db) return;
    const tx = db.transaction(this.store, 'readwrite');
    tx.objectStore(this.store).put(record);
    await txDone(tx);
  }

  async remove(key: string): Promise<void> {
    const db = await this.open();
    if (!db) return;
    const tx = db.transaction(this.store, 'readwrite');
    tx.objectStore(this.store).delete(key);
    await txDone(tx);
  }

  /** Deletes the database; a tab holding it open closes it on versionchange, and the deletion completes then. */
  async wipe(): Promise<void> {
    if (typeof indexedDB === 'undefined') return;
    (await this.opening)?.close();
    this.opening = null;
    await new Promise<void>((resolve) => {
      const req = indexedDB.deleteDatabase(this.name);
      req.onsuccess = () => resolve();
      req.onerror = () => resolve();
      req.onblocked = () => resolve();
    });
  }
}

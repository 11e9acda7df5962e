/**
 * This browser's copy of the account keys (design e2ee.md 2.2): IndexedDB database
 * 'parley-keys', holding the bundle's contents sealed under a per-browser AES key that
 * is itself stored non-extractable. It lets a browser that already holds the keys
 * re-seal them silently after a password reset. Signing out deletes all of it.
 */
import type { BundleContents, CryptoKey } from '@app/e2ee';
import { openIdb, txDone } from '../idb';

const DB_NAME = 'parley-keys';
const STORE = 'keys';
const LOCAL_KEY = 'local-key';
const ACCOUNT = 'account';

interface AccountRecord {
  id: typeof ACCOUNT;
  userId: string;
  sealed: string;
}

function open(): Promise<IDBDatabase | null> {
  return openIdb(DB_NAME, 1, (db) => {
    if (!db.objectStoreNames.contains(STORE)) db.createObjectStore(STORE, { keyPath: 'id' });
  });
}

async function read<T>(db: IDBDatabase, id: string): Promise<T | undefined> {
  const tx = db.transaction(STORE, 'readonly');
  const req = tx.objectStore(STORE).get(id);
  await txDone(tx);
  return req.result as T | undefined;
}

async function write(db: IDBDatabase, value: object): Promise<void> {
  const tx = db.transaction(STORE, 'readwrite');
  tx.objectStore(STORE).put(value);
  await txDone(tx);
}

/** The per-browser key, made on first use; it never leaves this browser (non-extractable). */
async function localKey(db: IDBDatabase): Promise<CryptoKey> {
  const stored = await read<{ key: CryptoKey }>(db, LOCAL_KEY);
  if (stored) return stored.key;
  const key = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
  await write(db, { id: LOCAL_KEY, key });
  return key;
}

/** Keeps `contents` for `userId` (replacing another user's). */
export async function saveLocalKeys(userId: string, contents: BundleContents): Promise<void> {
  const db = await open();
  if (!db) return;
  try {
    const { sealBundle } = await import('@app/e2ee');
    const sealed = await sealBundle(contents, await localKey(db), userId, 0);
    await write(db, { id: ACCOUNT, userId, sealed } satisfies AccountRecord);
  } finally {
    db.close();
  }
}

/** This browser's copy of `userId`'s keys, or null (none, another user's, or unreadable). */
export async function loadLocalKeys(userId: string): Promise<BundleContents | null> {
  const db = await open();
  if (!db) return null;
  try {
    const record = await read<AccountRecord>(db, ACCOUNT);
    if (record?.userId !== userId) return null;
    const { openBundle } = await import('@app/e2ee');
    return await openBundle(record.sealed, await localKey(db), userId, 0);
  } catch {
    return null;
  } finally {
    db.close();
  }
}

/** Deletes every key this browser holds (sign-out). */
export async function wipeLocalKeys(): Promise<void> {
  if (typeof indexedDB === 'undefined') return;
  await new Promise<void>((resolve) => {
    const req = indexedDB.deleteDatabase(DB_NAME);
    req.onsuccess = () => resolve();
    req.onerror = () => resolve();
    // Another tab holds it open: it closes on versionchange; the deletion completes then.
    req.onblocked = () => resolve();
  });
}

const LOCAL_AAD = new TextEncoder().encode('parley/outbox/v1');

/**
 * Seals `text` under this browser's own key (the outbox keeps messages so, until they are
 * sent: no plaintext at rest). Without IndexedDB there is nothing at rest: null.
 */
export async function sealLocal(text: string): Promise<string | null> {
  const db = await open();
  if (!db) return null;
  try {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const data = new TextEncoder().encode(text);
    const sealed = new Uint8Array(
      await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: LOCAL_AAD }, await localKey(db), data),
    );
    const { toBase64Url } = await import('@app/e2ee');
    return toBase64Url(new Uint8Array([...iv, ...sealed]));
  } finally {
    db.close();
  }
}

/** What sealLocal sealed, or null (another browser's, or keys wiped since). */
export async function openLocal(sealed: string): Promise<string | null> {
  const db = await open();
  if (!db) return null;
  try {
    const { fromBase64Url } = await import('@app/e2ee');
    const data = fromBase64Url(sealed);
    const plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: data.subarray(0, 12), additionalData: LOCAL_AAD },
      await localKey(db),
      data.subarray(12),
    );
    return new TextDecoder().decode(plain);
  } catch {
    return null;
  } finally {
    db.close();
  }
}

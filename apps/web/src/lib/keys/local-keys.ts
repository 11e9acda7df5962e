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

/** Runs `use` with the database and this browser's key, then closes the database; `absent` where there is no IndexedDB. */
async function withLocalKey<T>(absent: T, use: (db: IDBDatabase, key: CryptoKey) => Promise<T>): Promise<T> {
  const db = await open();
  if (!db) return absent;
  try {
    return await use(db, await localKey(db));
  } finally {
    db.close();
  }
}

/** Keeps `contents` for `userId` (replacing another user's). */
export async function saveLocalKeys(userId: string, contents: BundleContents): Promise<void> {
  await withLocalKey(undefined, async (db, key) => {
    const { sealBundle } = await import('@app/e2ee');
    await write(db, {
      id: ACCOUNT,
      userId,
      sealed: await sealBundle(contents, key, userId, 0),
    } satisfies AccountRecord);
  });
}

/** This browser's copy of `userId`'s keys, or null (none, another user's, or unreadable). */
export function loadLocalKeys(userId: string): Promise<BundleContents | null> {
  return withLocalKey(null, async (db, key) => {
    const record = await read<AccountRecord>(db, ACCOUNT);
    if (record?.userId !== userId) return null;
    return (await import('@app/e2ee')).openBundle(record.sealed, key, userId, 0);
  }).catch(() => null);
}

/** What this browser keeps about a peer's identity (not secret: public keys). */
interface PeerRecord<T> {
  id: string;
  value: T;
}

async function loadPeer<T>(kind: string, userId: string, peerId: string): Promise<T | null> {
  const db = await open();
  if (!db) return null;
  try {
    return (await read<PeerRecord<T>>(db, `${kind}:${userId}:${peerId}`))?.value ?? null;
  } finally {
    db.close();
  }
}

async function savePeer<T>(kind: string, userId: string, peerId: string, value: T | null): Promise<void> {
  const db = await open();
  if (!db) return;
  try {
    const tx = db.transaction(STORE, 'readwrite');
    const id = `${kind}:${userId}:${peerId}`;
    if (value === null) tx.objectStore(STORE).delete(id);
    else tx.objectStore(STORE).put({ id, value } satisfies PeerRecord<T>);
    await txDone(tx);
  } finally {
    db.close();
  }
}

/** The identity key of `peerId` that `userId` marked as verified in this browser, or null. */
export const loadVerified = (userId: string, peerId: string) => loadPeer<string>('verified', userId, peerId);

/** Marks `ik` as `peerId`'s verified identity key (null: not verified). */
export const saveVerified = (userId: string, peerId: string, ik: string | null) =>
  savePeer('verified', userId, peerId, ik);

/** Every identity key of `peerId` this browser has trusted (null: none seen yet). */
export const loadPins = (userId: string, peerId: string) => loadPeer<string[]>('pins', userId, peerId);

export const savePins = (userId: string, peerId: string, iks: string[]) => savePeer('pins', userId, peerId, iks);

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

const OUTBOX_LABEL = 'parley/outbox/v1';

/**
 * Seals `text` under this browser's own key (the outbox keeps messages so, until they are
 * sent: no plaintext at rest). Without IndexedDB there is nothing at rest: null.
 */
export function sealLocal(text: string): Promise<string | null> {
  return withLocalKey(null, async (_db, key) => {
    const e2ee = await import('@app/e2ee');
    return e2ee.toBase64Url(await e2ee.aeadSeal(key, e2ee.utf8(text), e2ee.utf8(OUTBOX_LABEL)));
  });
}

/** What sealLocal sealed, or null (another browser's, or keys wiped since). */
export function openLocal(sealed: string): Promise<string | null> {
  return withLocalKey(null, async (_db, key) => {
    const e2ee = await import('@app/e2ee');
    return e2ee.fromUtf8(await e2ee.aeadOpen(key, e2ee.fromBase64Url(sealed), e2ee.utf8(OUTBOX_LABEL)));
  }).catch(() => null);
}

/**
 * This browser's copy of the account keys (docs/e2ee.md, threat model in
 * docs/threat-model.md): the bundle's contents sealed under a per-browser AES key, with the
 * bundle version they came from (a server that later serves an older bundle is refused),
 * and what this browser knows of peers' identities.
 *
 * Where it lives depends on the session (lib/at-rest.ts): a remembered one keeps it in
 * IndexedDB ('parley-keys'), so a reload or a new tab reads it; one without "Remember me"
 * keeps it in this tab's memory only, and nothing of it reaches the disk. Signing out
 * deletes all of it.
 */
import type { BundleContents, CryptoKey } from '@app/e2ee';
import { keepsAtRest, setKeepsAtRest } from '@/lib/at-rest';
import { openIdb, txDone } from '@/lib/idb';
import { forgetInTabs, holdInTab, keysFromTabs, type LocalKeys } from './tab-keys';

const DB_NAME = 'parley-keys';
const STORE = 'keys';
const LOCAL_KEY = 'local-key';
const ACCOUNT = 'account';

interface AccountRecord {
  id: typeof ACCOUNT;
  userId: string;
  sealed: string;
  /** The server's bundle version these keys were opened from or sealed as (records from before: 0). */
  bundleVersion?: number;
}

export type { LocalKeys } from './tab-keys';

/**
 * The records of this tab's memory, when nothing is kept at rest (the account's keys are
 * held by tab-keys.ts, which shares them with the browser's other tabs). Cleared at sign-out.
 */
const memory = new Map<string, unknown>();

function open(): Promise<IDBDatabase | null> {
  if (!keepsAtRest()) return Promise.resolve(null);
  return openIdb(DB_NAME, 1, (db) => {
    if (!db.objectStoreNames.contains(STORE)) db.createObjectStore(STORE, { keyPath: 'id' });
  });
}

/** Runs `use` with the database (null: nothing at rest here), then closes it. */
async function withDb<T>(use: (db: IDBDatabase | null) => Promise<T>): Promise<T> {
  const db = await open();
  try {
    return await use(db);
  } finally {
    db?.close();
  }
}

async function read<T>(db: IDBDatabase | null, id: string): Promise<T | undefined> {
  if (!db) return memory.get(id) as T | undefined;
  const tx = db.transaction(STORE, 'readonly');
  const req = tx.objectStore(STORE).get(id);
  await txDone(tx);
  return req.result as T | undefined;
}

async function write(db: IDBDatabase | null, value: { id: string; [field: string]: unknown }): Promise<void> {
  if (!db) {
    memory.set(value.id, value);
    return;
  }
  const tx = db.transaction(STORE, 'readwrite');
  tx.objectStore(STORE).put(value);
  await txDone(tx);
}

async function remove(db: IDBDatabase | null, id: string): Promise<void> {
  if (!db) {
    memory.delete(id);
    return;
  }
  const tx = db.transaction(STORE, 'readwrite');
  tx.objectStore(STORE).delete(id);
  await txDone(tx);
}

/** The per-browser key, made on first use; it never leaves this browser (non-extractable). */
async function localKey(db: IDBDatabase | null): Promise<CryptoKey> {
  const stored = await read<{ key: CryptoKey }>(db, LOCAL_KEY);
  if (stored) return stored.key;
  const key = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
  await write(db, { id: LOCAL_KEY, key });
  return key;
}

/** Keeps `contents` for `userId` (replacing another user's), as bundle `bundleVersion`. */
export async function saveLocalKeys(userId: string, contents: BundleContents, bundleVersion: number): Promise<void> {
  await withDb(async (db) => {
    if (!db) {
      holdInTab(userId, { contents, bundleVersion });
      return;
    }
    const { sealBundle } = await import('@app/e2ee');
    await write(db, {
      id: ACCOUNT,
      userId,
      sealed: await sealBundle(contents, await localKey(db), userId, 0),
      bundleVersion,
    } satisfies AccountRecord);
  });
}

/** This browser's copy of `userId`'s keys, or null (none, another user's, or unreadable). */
export async function loadLocalKeys(userId: string): Promise<LocalKeys | null> {
  return withDb(async (db) => {
    if (!db) return keysFromTabs(userId);
    const record = await read<AccountRecord>(db, ACCOUNT);
    if (record?.userId !== userId) return null;
    const contents = await (await import('@app/e2ee')).openBundle(record.sealed, await localKey(db), userId, 0);
    return { contents, bundleVersion: record.bundleVersion ?? 0 };
  }).catch(() => null);
}

/** What this browser keeps about a peer's identity (not secret: public keys). */
interface PeerRecord<T> {
  id: string;
  value: T;
}

async function loadPeer<T>(kind: string, userId: string, peerId: string): Promise<T | null> {
  return withDb(async (db) => (await read<PeerRecord<T>>(db, `${kind}:${userId}:${peerId}`))?.value ?? null);
}

async function savePeer<T>(kind: string, userId: string, peerId: string, value: T | null): Promise<void> {
  const id = `${kind}:${userId}:${peerId}`;
  await withDb((db) => (value === null ? remove(db, id) : write(db, { id, value } satisfies PeerRecord<T>)));
}

/**
 * The identity key of `peerId` that `userId` marked as verified in this browser, or null.
 * Written by browsers from before pins were account data (peer-keys.ts carries it over).
 */
export const loadVerified = (userId: string, peerId: string) => loadPeer<string>('verified', userId, peerId);

/** Every identity key of `peerId` this browser trusted before pins were account data (null: none). */
export const loadPins = (userId: string, peerId: string) => loadPeer<string[]>('pins', userId, peerId);

/** Keeps pins and a verified mark as browsers did before account data (tests of the carrying over). */
export async function savePeerRecords(userId: string, peerId: string, pins: string[], verified: string | null) {
  await savePeer('pins', userId, peerId, pins);
  await savePeer('verified', userId, peerId, verified);
}

/** Deletes every key this browser holds (sign-out): this tab's memory and the database. */
export async function wipeLocalKeys(): Promise<void> {
  memory.clear();
  forgetInTabs(true);
  await deleteDatabase();
}

function deleteDatabase(): Promise<void> {
  if (typeof indexedDB === 'undefined') return Promise.resolve();
  return new Promise<void>((resolve) => {
    const req = indexedDB.deleteDatabase(DB_NAME);
    req.onsuccess = () => resolve();
    req.onerror = () => resolve();
    // Another tab holds it open: it closes on versionchange; the deletion completes then.
    req.onblocked = () => resolve();
  });
}

/**
 * A sign-in without "Remember me": from now on nothing is kept at rest. A copy of
 * `userId`'s keys this browser held moves into the tab's memory (so the sign-in still checks
 * the server's bundle against it), and the database, with the key that sealed what else was
 * at rest, goes.
 */
export async function moveKeysIntoMemory(userId: string): Promise<void> {
  const held = await loadLocalKeys(userId);
  setKeepsAtRest(false);
  if (held) holdInTab(userId, held);
  else forgetInTabs(false);
  await deleteDatabase();
}

const OUTBOX_LABEL = 'parley/outbox/v1';

/**
 * How the outbox and the drafts keep texts at rest: sealed under this browser's own key
 * (browserSealing, below; tests give their own, src/test/local-sealing.ts).
 */
export interface LocalSealing {
  /** null: nothing is kept at rest here (no IndexedDB). */
  seal(text: string): Promise<string | null>;
  open(sealed: string): Promise<string | null>;
}

/**
 * Seals `text` under this browser's own key (the outbox keeps messages so, until they are
 * sent: no plaintext at rest). Where nothing is kept at rest (no IndexedDB, or a session
 * without "Remember me"): null, and the text stays in memory.
 */
export function sealLocal(text: string): Promise<string | null> {
  return withDb(async (db) => {
    if (!db) return null;
    const e2ee = await import('@app/e2ee');
    return e2ee.toBase64Url(await e2ee.aeadSeal(await localKey(db), e2ee.utf8(text), e2ee.utf8(OUTBOX_LABEL)));
  });
}

/** What sealLocal sealed, or null (another browser's, or keys wiped since). */
export function openLocal(sealed: string): Promise<string | null> {
  return withDb(async (db) => {
    if (!db) return null;
    const e2ee = await import('@app/e2ee');
    return e2ee.fromUtf8(await e2ee.aeadOpen(await localKey(db), e2ee.fromBase64Url(sealed), e2ee.utf8(OUTBOX_LABEL)));
  }).catch(() => null);
}

/** This browser's LocalSealing: sealLocal and openLocal. */
export const browserSealing: LocalSealing = { seal: sealLocal, open: openLocal };

/**
 * The outbox at rest (the queue that sends them: outbox.ts): messages typed but not yet
 * acknowledged by the server, kept in IndexedDB (database 'parley', store 'outbox', keyed
 * by msgId) so that neither a dropped connection nor a page reload loses them. Where
 * IndexedDB is unavailable (some private modes), a memory map stands in for this page's
 * lifetime.
 *
 * What is read back is parsed before use: an entry that does not have the shape
 * below (written by a broken or future page, or damaged) is left out.
 */
import { messageIdSchema, userIdSchema } from '@app/protocol';
import { z } from 'zod';
import { OneStoreDb, txDone } from '@/lib/idb';

/** Why a message was not sent: the server refused it for good, or it failed too often. */
const outboxFailureSchema = z.object({
  /** The server's error code (or 'timeout', 'internal'…). */
  code: z.string(),
  /** What to tell the user (the server's message). */
  reason: z.string(),
  /** When it failed (ms). */
  at: z.number(),
});
export type OutboxFailure = z.infer<typeof outboxFailureSchema>;

const outboxEntrySchema = z
  .object({
    msgId: messageIdSchema,
    /** The recipient's user id. */
    to: userIdSchema,
    /**
     * The text, sealed under this browser's own key (keys/local-keys.ts sealLocal): no
     * plaintext at rest. '' where nothing is at rest (no IndexedDB: the memory stand-in).
     */
    sealed: z.string().optional(),
    /**
     * What travels with the text (the message it replies to, the forwarded mark) as JSON,
     * sealed the same way; absent for a plain text (outbox-content.ts).
     */
    sealedExtras: z.string().optional(),
    /** Entries written before end-to-end encryption held the text itself: sealed when loaded. */
    text: z.string().optional(),
    createdAt: z.number().int().nonnegative(),
    /** The sender: only this user's session sends it. */
    userId: userIdSchema,
    /**
     * A file going with the message (its attachment): the sealed bytes (ciphertext, safe at
     * rest; the key is in the sealed extras), the upload's path once the server made it (to
     * resume after a reload), and its id once complete.
     */
    upload: z.object({ blob: z.instanceof(Blob), url: z.string().optional(), id: z.string().optional() }).optional(),
    /**
     * Set once the message failed: it is kept (shown as "Not sent") until the user
     * retries or deletes it, and not sent meanwhile. Entries of earlier versions have none.
     */
    failed: outboxFailureSchema.optional(),
  })
  .refine((e) => e.sealed !== undefined || e.text !== undefined, { message: 'No text' });
export type OutboxEntry = z.infer<typeof outboxEntrySchema>;

/**
 * The entries of `userId` among stored records, oldest first: records without the shape
 * of an OutboxEntry are left out (and left alone: a newer page may understand them),
 * unknown fields are dropped.
 */
export function parseOutboxEntries(raw: readonly unknown[], userId: string): OutboxEntry[] {
  const out: OutboxEntry[] = [];
  for (const r of raw) {
    const parsed = outboxEntrySchema.safeParse(r);
    if (parsed.success && parsed.data.userId === userId) out.push(parsed.data);
  }
  return out.sort((a, b) => a.createdAt - b.createdAt);
}

/**
 * Where the outbox keeps its entries (IndexedDB in the browser; a fake in tests). What
 * `list` returns is what was stored, unparsed: the queue parses it before use.
 */
export interface OutboxStore {
  /** Stores (or replaces) an entry; resolves once it is durable. */
  put(entry: OutboxEntry): Promise<void>;
  remove(msgId: string): Promise<void>;
  /** The records stored for this user, as they were read. */
  list(userId: string): Promise<readonly unknown[]>;
}

const outbox = new OneStoreDb('parley', 'outbox', 'msgId');
const STORE = outbox.store;
const memory = new Map<string, OutboxEntry>();

/** Stores an entry; resolves once it is durable. */
export async function putOutbox(entry: OutboxEntry): Promise<void> {
  const db = await outbox.open();
  if (!db) {
    memory.set(entry.msgId, entry);
    return;
  }
  const tx = db.transaction(STORE, 'readwrite');
  tx.objectStore(STORE).put(entry);
  await txDone(tx);
}

export async function removeOutbox(msgId: string): Promise<void> {
  memory.delete(msgId);
  const db = await outbox.open();
  if (!db) return;
  const tx = db.transaction(STORE, 'readwrite');
  tx.objectStore(STORE).delete(msgId);
  await txDone(tx);
}

/** This user's stored records (waiting and failed messages), unparsed: see parseOutboxEntries. */
export async function listOutbox(userId: string): Promise<unknown[]> {
  const db = await outbox.open();
  if (!db) return [...memory.values()].filter((e) => e.userId === userId);
  const tx = db.transaction(STORE, 'readonly');
  const req = tx.objectStore(STORE).index('userId').getAll(userId);
  await txDone(tx);
  return req.result as unknown[];
}

/** Deletes every waiting message this browser holds (sign-out: the key that sealed them goes too). */
export async function wipeOutbox(): Promise<void> {
  memory.clear();
  await outbox.wipe();
}

/** The outbox in this browser's IndexedDB. */
export const indexedDbOutbox: OutboxStore = { put: putOutbox, remove: removeOutbox, list: listOutbox };

/** The ids of the messages this browser's outbox holds at rest for `userId` (the drafts ask, client/drafts/drafts.ts). */
export async function outboxHolds(userId: string): Promise<ReadonlySet<string>> {
  return new Set(parseOutboxEntries(await listOutbox(userId), userId).map((e) => e.msgId));
}

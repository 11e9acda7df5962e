/**
 * The highest revision this browser has seen of each message (docs/threat-model.md,
 * "Rollback"): an edit or a deletion is the message's next revision, sealed by its sender,
 * and the revision is bound into each ciphertext. A server could still hand back an older
 * revision it kept (the text before an edit, or before a deletion) with its own older
 * number; the browser refuses one lower than it has seen. Only messages past revision 0 are
 * kept. At rest like the keys (lib/at-rest.ts): IndexedDB 'parley-revisions' in a remembered
 * session, this tab's memory otherwise; deleted at sign-out. A browser that never saw the
 * newer revision cannot tell: the threat model says so.
 */
import { OneStoreDb, txDone } from '@/lib/idb';
import { logged } from '@/lib/log';

interface RevisionRecord {
  /** `${userId}:${chatId}/${msgId}` */
  id: string;
  userId: string;
  rev: number;
}

const store = new OneStoreDb('parley-revisions', 'revisions', 'id');

export class Revisions {
  private readonly userId: string;
  private readonly highest = new Map<string, number>();
  private loaded: Promise<void> | null = null;

  constructor(userId: string) {
    this.userId = userId;
  }

  private static key(chatId: string, msgId: string): string {
    return `${chatId}/${msgId}`;
  }

  private load(): Promise<void> {
    this.loaded ??= (async () => {
      const db = await store.open();
      if (!db) return;
      const tx = db.transaction(store.store, 'readonly');
      const req = tx.objectStore(store.store).index('userId').getAll(this.userId);
      await txDone(tx);
      for (const r of req.result as RevisionRecord[]) {
        const k = r.id.slice(this.userId.length + 1);
        this.highest.set(k, Math.max(this.highest.get(k) ?? 0, r.rev));
      }
    })().catch(() => {
      // Unreadable: this tab remembers what it sees from now on.
    });
    return this.loaded;
  }

  /** The highest revision of the message seen here (0 when none past the first). */
  async seen(chatId: string, msgId: string): Promise<number> {
    await this.load();
    return this.highest.get(Revisions.key(chatId, msgId)) ?? 0;
  }

  /** Revision `rev` of the message was opened (or written) here. */
  async saw(chatId: string, msgId: string, rev: number): Promise<void> {
    if (rev <= 0) return;
    await this.load();
    const k = Revisions.key(chatId, msgId);
    if ((this.highest.get(k) ?? 0) >= rev) return;
    this.highest.set(k, rev);
    const db = await store.open();
    if (!db) return;
    const tx = db.transaction(store.store, 'readwrite');
    tx.objectStore(store.store).put({ id: `${this.userId}:${k}`, userId: this.userId, rev } satisfies RevisionRecord);
    // Kept in memory either way; only the next page would forget it.
    await txDone(tx).catch(logged('revisions', 'store the highest revision'));
  }
}

/** Deletes what every account remembered here (sign-out). */
export function wipeRevisions(): Promise<void> {
  return store.wipe();
}

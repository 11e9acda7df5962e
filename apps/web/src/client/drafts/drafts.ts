/**
 * The composer's unsent texts, one per chat, for one signed-in user: read synchronously
 * from memory (the composer restores its chat's draft, the chat list shows "Draft: ..."),
 * kept at rest through a DraftStore, sealed under this browser's own key like the outbox
 * (no plaintext at rest), and written DRAFT_SAVE_MS after the last keystroke or at once on
 * `flush` (leaving the chat). A draft emptied (or sent) is removed.
 *
 * A text just sent is handed over to the outbox (see `sending`): until the outbox has it at
 * rest, the draft at rest keeps it too, with its message id, and the outbox sends it only
 * once the draft no longer does. So a draft read back holding a sent text whose message the
 * outbox holds drops it (the outbox will send it), and one whose message the outbox does
 * not hold keeps it (it was never stored, nor sent): a reload at any moment neither loses a
 * text nor shows one both sent and as a draft.
 *
 * What is read back is parsed before use: a record without the shape below, or that no
 * longer opens (sealed under a key wiped since), is left out and removed.
 */
import { z } from 'zod';
import { logged } from '@/lib/log';
import type { LocalSealing } from '../keys/local-keys';

/** How long the composer is quiet before its draft is written. */
export const DRAFT_SAVE_MS = 300;

const draftRecordSchema = z.object({
  /** `${userId}:${peerId}`. */
  id: z.string(),
  userId: z.string(),
  peerId: z.string(),
  /** The composer's text, sealed under this browser's key (keys/local-keys.ts sealLocal). */
  sealed: z.string(),
  /** Texts sent but not yet at rest in the outbox, oldest first, sealed likewise (none in records of earlier versions). */
  sent: z.array(z.object({ msgId: z.string(), sealed: z.string() })).optional(),
  /** When it was written (ms). */
  at: z.number().int().nonnegative(),
});
export type DraftRecord = z.infer<typeof draftRecordSchema>;

/** The message ids the outbox holds at rest for `userId` (outbox/outbox-store.ts). */
export type OutboxHolds = (userId: string) => Promise<ReadonlySet<string>>;

interface SentText {
  msgId: string;
  text: string;
}

export const draftId = (userId: string, peerId: string): string => `${userId}:${peerId}`;

/** Where drafts are kept (IndexedDB in the browser, draft-store.ts; a fake in tests). */
export interface DraftStore {
  /** The records stored for this user, as they were read. */
  list(userId: string): Promise<readonly unknown[]>;
  put(record: DraftRecord): Promise<void>;
  remove(id: string): Promise<void>;
}

export class Drafts {
  readonly userId: string;
  private readonly store: DraftStore;
  private readonly sealing: LocalSealing;
  private readonly texts = new Map<string, string>();
  /**
   * Texts sent but not yet held by the outbox at rest (see `sending`): until it has them,
   * they stay the chat's draft at rest, so a reload in between finds them in the composer.
   */
  private readonly unqueued = new Map<string, SentText[]>();
  /**
   * Peers whose composer was typed in, emptied or sent from since this page started: what
   * `load` reads at rest for them is older than what the page holds (a text sent before the
   * load finished is at rest as a draft until the outbox has it, and must not come back).
   */
  private readonly touched = new Set<string>();
  /** Peers whose draft changed since it was last written. */
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly listeners = new Set<() => void>();
  /** Writes, one after the other, so the last text of a chat is the one that stays. */
  private writes: Promise<void> = Promise.resolve();
  private stopped = false;
  /** True once what was at rest has been read (the composer restores it then). */
  loaded = false;

  private readonly outboxHolds: OutboxHolds;

  constructor(userId: string, store: DraftStore, sealing: LocalSealing, outboxHolds: OutboxHolds) {
    this.userId = userId;
    this.store = store;
    this.sealing = sealing;
    this.outboxHolds = outboxHolds;
  }

  /** Reads the drafts at rest; a chat typed in, emptied or sent from meanwhile keeps what the page holds. */
  async load(): Promise<void> {
    let raw: readonly unknown[] = [];
    try {
      raw = await this.store.list(this.userId);
    } catch {
      // Unreadable store: no drafts to restore.
    }
    const records = raw.flatMap((r) => {
      const parsed = draftRecordSchema.safeParse(r);
      return parsed.success && parsed.data.userId === this.userId ? [parsed.data] : [];
    });
    // Texts sent from an earlier page: those the outbox holds are its to send.
    const held = records.some((r) => r.sent?.length)
      ? await this.outboxHolds(this.userId).catch(() => new Set<string>())
      : new Set<string>();
    for (const { peerId, sealed, sent = [], id } of records) {
      const kept = sent.filter((s) => !held.has(s.msgId)).map((s) => s.sealed);
      const opened = await Promise.all([...kept, sealed].map((x) => this.sealing.open(x).catch(() => null)));
      if (this.stopped) return;
      const text = opened.filter((t): t is string => t !== null && t !== '').join('\n');
      if (text === '') {
        void this.store.remove(id).catch(logged('drafts', 'remove an empty or unreadable draft'));
      } else if (!this.touched.has(peerId)) {
        this.texts.set(peerId, text);
        // Its sent texts are now the draft's own: written so.
        if (sent.length > 0) this.dirty.add(peerId);
      }
    }
    this.loaded = true;
    this.changed();
    for (const peerId of [...this.dirty]) if (!this.touched.has(peerId)) void this.flush(peerId);
  }

  /** The draft of the chat with `peerId` ('' when there is none). */
  get(peerId: string): string {
    return this.texts.get(peerId) ?? '';
  }

  /** The composer's text changed: kept now, written after DRAFT_SAVE_MS of quiet (removed at once when emptied). */
  set(peerId: string, text: string): void {
    if (this.stopped || this.get(peerId) === text) return;
    this.touched.add(peerId);
    if (text === '') this.texts.delete(peerId);
    else this.texts.set(peerId, text);
    this.dirty.add(peerId);
    clearTimeout(this.timers.get(peerId));
    // Emptied: removed at once (nothing to seal, and a reload right after must not bring
    // the old text back); a text being typed waits for a quiet moment.
    if (text === '') void this.flush(peerId);
    else
      this.timers.set(
        peerId,
        setTimeout(() => void this.flush(peerId), DRAFT_SAVE_MS),
      );
    this.changed();
  }

  /**
   * The chat's text was sent as message `msgId`: the composer is empty now, and the draft
   * at rest holds the text until `queued` settles (the outbox has stored the message, or,
   * when it could not, is done with it), then no longer. Resolves once the draft at rest no
   * longer holds it: the outbox sends the message only then (see the header). Texts sent
   * one after another before the first is stored stay there together, each with its id.
   */
  sending(peerId: string, text: string, msgId: string, queued: Promise<unknown>): Promise<void> {
    this.touched.add(peerId);
    const texts = this.unqueued.get(peerId) ?? [];
    const item = { msgId, text };
    texts.push(item);
    this.unqueued.set(peerId, texts);
    // The composer is empty now: one write holds the sent text (not a removal first).
    this.texts.delete(peerId);
    this.changed();
    void this.rewrite(peerId);
    return (
      queued
        // The outbox reports a failed send itself; the draft is rewritten either way.
        .catch(() => {})
        .then(() => {
          texts.splice(texts.indexOf(item), 1);
          if (texts.length === 0) this.unqueued.delete(peerId);
          return this.rewrite(peerId);
        })
    );
  }

  /** Writes the chat's draft at rest now, whether or not the composer's text changed. */
  private rewrite(peerId: string): Promise<void> {
    this.dirty.add(peerId);
    return this.flush(peerId);
  }

  /** Writes the chat's draft now if it changed (leaving the chat, sending); resolves once written. */
  flush(peerId: string): Promise<void> {
    clearTimeout(this.timers.get(peerId));
    this.timers.delete(peerId);
    if (!this.dirty.has(peerId)) return this.writes;
    this.dirty.delete(peerId);
    this.writes = this.writes.then(() => this.write(peerId)).catch(logged('drafts', 'write a draft'));
    return this.writes;
  }

  /** Writes every changed draft now (the page is going away). */
  flushAll(): Promise<void> {
    for (const peerId of [...this.dirty]) void this.flush(peerId);
    return this.writes;
  }

  /** Forgets every draft and writes nothing more (sign-out); resolves once pending writes are done. */
  stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.dirty.clear();
    this.texts.clear();
    this.touched.clear();
    this.unqueued.clear();
    this.changed();
    return this.writes;
  }

  private async write(peerId: string): Promise<void> {
    if (this.stopped) return;
    const id = draftId(this.userId, peerId);
    const sent = [...(this.unqueued.get(peerId) ?? [])];
    const text = this.get(peerId);
    if (text === '' && sent.length === 0) {
      await this.store.remove(id);
      return;
    }
    const sealed = await Promise.all([text, ...sent.map((s) => s.text)].map((t) => this.sealing.seal(t)));
    // Nothing is kept at rest here (no IndexedDB): the draft lives as long as the page.
    if (sealed.some((x) => x === null) || this.stopped) return;
    const [own, ...rest] = sealed as string[];
    await this.store.put({
      id,
      userId: this.userId,
      peerId,
      sealed: own ?? '',
      sent: sent.map((s, i) => ({ msgId: s.msgId, sealed: rest[i] ?? '' })),
      at: Date.now(),
    });
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private changed(): void {
    for (const l of [...this.listeners]) l();
  }
}

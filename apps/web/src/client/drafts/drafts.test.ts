import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { testSealing } from '@/test/local-sealing';
import { DRAFT_SAVE_MS, type DraftRecord, type DraftStore, Drafts, draftId, type OutboxHolds } from './drafts';

const ME = 'A'.repeat(20);
const OTHER = 'O'.repeat(20);
const BOB = 'B'.repeat(20);
const CAROL = 'C'.repeat(20);

/** An outbox that holds nothing at rest. */
const EMPTY_OUTBOX: OutboxHolds = async () => new Set();

/** A store in memory that records every write. */
function memoryDrafts(): DraftStore & { rows: Map<string, unknown>; writes: number } {
  const rows = new Map<string, unknown>();
  const s = {
    rows,
    writes: 0,
    async list(userId: string) {
      return [...rows.values()].filter((r) => (r as DraftRecord).userId === userId);
    },
    async put(r: DraftRecord) {
      s.writes += 1;
      rows.set(r.id, r);
    },
    async remove(id: string) {
      s.writes += 1;
      rows.delete(id);
    },
  };
  return s;
}

/**
 * Drafts of ME with texts sent to BOB: `sent` hands one to `sending` and returns what the
 * outbox calls once it has stored it; `atRest` lets what is due settle, writes, and reads
 * BOB's draft back as a reloaded page would.
 */
function sendingWorld() {
  const store = memoryDrafts();
  const sealing = testSealing();
  const drafts = new Drafts(ME, store, sealing, EMPTY_OUTBOX);
  let n = 0;
  const sent = (text: string) => {
    let stored!: () => void;
    n += 1;
    void drafts.sending(BOB, text, `m${n}`, new Promise<void>((r) => (stored = r)));
    return stored;
  };
  const atRest = async () => {
    await vi.advanceTimersByTimeAsync(0);
    await drafts.flushAll();
    const reloaded = new Drafts(ME, store, sealing, EMPTY_OUTBOX);
    await reloaded.load();
    return reloaded.get(BOB);
  };
  return { store, drafts, sent, atRest };
}

describe('Drafts', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('keeps a draft in memory at once and writes it sealed after a quiet moment', async () => {
    const store = memoryDrafts();
    const drafts = new Drafts(ME, store, testSealing(), EMPTY_OUTBOX);
    drafts.set(BOB, 'hel');
    drafts.set(BOB, 'hello\nthere');
    expect(drafts.get(BOB)).toBe('hello\nthere');
    expect(store.writes).toBe(0);
    await vi.advanceTimersByTimeAsync(DRAFT_SAVE_MS - 1);
    expect(store.writes).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    await drafts.flush(BOB);
    expect(store.writes).toBe(1);
    const row = store.rows.get(draftId(ME, BOB)) as DraftRecord;
    expect(row).toMatchObject({ userId: ME, peerId: BOB });
    // No plaintext at rest.
    expect(JSON.stringify(row)).not.toContain('hello');
  });

  it('restores the drafts of its user only, and a chat typed in before the load keeps what was typed', async () => {
    const store = memoryDrafts();
    const sealing = testSealing();
    const before = new Drafts(ME, store, sealing, EMPTY_OUTBOX);
    before.set(BOB, 'for bob');
    before.set(CAROL, 'for carol');
    await before.flushAll();
    const other = new Drafts(OTHER, store, sealing, EMPTY_OUTBOX);
    other.set(BOB, 'not mine');
    await other.flushAll();

    const after = new Drafts(ME, store, sealing, EMPTY_OUTBOX);
    after.set(CAROL, 'typed meanwhile');
    expect(after.loaded).toBe(false);
    await after.load();
    expect(after.loaded).toBe(true);
    expect(after.get(BOB)).toBe('for bob');
    expect(after.get(CAROL)).toBe('typed meanwhile');
    const otherAgain = new Drafts(OTHER, store, sealing, EMPTY_OUTBOX);
    await otherAgain.load();
    expect(otherAgain.get(BOB)).toBe('not mine');
    expect(otherAgain.get(CAROL)).toBe('');
  });

  it('removes a draft emptied or sent, and the last text typed is the one that stays', async () => {
    const store = memoryDrafts();
    const drafts = new Drafts(ME, store, testSealing(), EMPTY_OUTBOX);
    drafts.set(BOB, 'first');
    await drafts.flush(BOB);
    drafts.set(BOB, 'second');
    void drafts.flush(BOB);
    drafts.set(BOB, '');
    await drafts.flush(BOB);
    expect(drafts.get(BOB)).toBe('');
    expect(store.rows.size).toBe(0);
    // Leaving a chat whose draft did not change writes nothing.
    const writes = store.writes;
    await drafts.flush(BOB);
    expect(store.writes).toBe(writes);
  });

  it('a sent text stays the draft at rest until the outbox holds it, then goes (and what was typed since stays)', async () => {
    const { store, drafts, sent, atRest } = sendingWorld();
    drafts.set(BOB, 'typed fast');
    const stored = sent('typed fast, sent');
    expect(drafts.get(BOB)).toBe('');
    // The page goes away before the outbox has stored the message: the text is at rest.
    expect(await atRest()).toBe('typed fast, sent');
    // Once the outbox holds it, the draft at rest is removed.
    stored();
    await atRest();
    expect(store.rows.size).toBe(0);

    // Typed into the composer meanwhile: both are at rest, then what was typed stays.
    const storedToo = sent('another');
    drafts.set(BOB, 'next thought');
    expect(await atRest()).toBe('another\nnext thought');
    storedToo();
    expect(await atRest()).toBe('next thought');
  });

  it('a draft emptied is removed at rest at once: a reload right after does not bring it back', async () => {
    const store = memoryDrafts();
    const drafts = new Drafts(ME, store, testSealing(), EMPTY_OUTBOX);
    drafts.set(BOB, 'soon gone');
    await drafts.flush(BOB);
    expect(store.rows.size).toBe(1);
    drafts.set(BOB, '');
    // Without waiting DRAFT_SAVE_MS: the removal is under way already.
    await vi.advanceTimersByTimeAsync(0);
    expect(store.rows.size).toBe(0);
  });

  it('a text sent, or a draft emptied, before the drafts at rest are read does not come back as a draft', async () => {
    const store = memoryDrafts();
    const sealing = testSealing();
    const earlier = new Drafts(ME, store, sealing, EMPTY_OUTBOX);
    earlier.set(CAROL, 'old carol draft');
    await earlier.flushAll();
    // The page's read of what is at rest takes a while: the text sent meanwhile is written
    // at rest (not yet stored by the outbox) before the read sees the rows.
    let release!: () => void;
    const slow: DraftStore = {
      ...store,
      list: async (userId) => {
        await new Promise<void>((r) => (release = r));
        return store.list(userId);
      },
    };
    const page = new Drafts(ME, slow, sealing, EMPTY_OUTBOX);
    const loading = page.load();
    let stored!: () => void;
    void page.sending(BOB, 'hi bob', 'm1', new Promise<void>((r) => (stored = r)));
    page.set(CAROL, 'x');
    page.set(CAROL, '');
    await vi.advanceTimersByTimeAsync(DRAFT_SAVE_MS);
    await page.flushAll();
    release();
    await loading;
    expect(page.get(BOB)).toBe('');
    expect(page.get(CAROL)).toBe('');
    stored();
    await vi.advanceTimersByTimeAsync(0);
    await page.flushAll();
    expect(store.rows.size).toBe(0);
  });

  it('hands a sent text over to the outbox: read back, it is dropped where the outbox holds its message and kept where it does not', async () => {
    const store = memoryDrafts();
    const sealing = testSealing();
    const before = new Drafts(ME, store, sealing, EMPTY_OUTBOX);
    let storedOne!: () => void;
    const one = before.sending(BOB, 'one', 'm1', new Promise<void>((r) => (storedOne = r)));
    void before.sending(BOB, 'two', 'm2', new Promise<void>(() => {}));
    before.set(BOB, 'typing');
    await vi.advanceTimersByTimeAsync(DRAFT_SAVE_MS);
    await before.flushAll();
    const row = store.rows.get(draftId(ME, BOB)) as DraftRecord;
    expect(row.sent?.map((s) => s.msgId)).toEqual(['m1', 'm2']);
    expect(JSON.stringify(row)).not.toMatch(/one|two|typing/);

    // The page goes away here. The outbox holds m1 (stored, to be sent), not m2 (never stored).
    const reloaded = new Drafts(ME, store, sealing, async () => new Set(['m1']));
    await reloaded.load();
    expect(reloaded.get(BOB)).toBe('two\ntyping');
    // …and it is written back as the draft's own text.
    await reloaded.flushAll();
    expect((store.rows.get(draftId(ME, BOB)) as DraftRecord).sent).toEqual([]);

    // On the first page, the hand-over resolves once the draft at rest no longer holds it.
    let handedOver = false;
    void one.then(() => (handedOver = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(handedOver).toBe(false);
    storedOne();
    await one;
    expect(handedOver).toBe(true);
    const after = (store.rows.get(draftId(ME, BOB)) as DraftRecord).sent ?? [];
    expect(after.map((s) => s.msgId)).toEqual(['m2']);
  });

  it('two texts sent before the first is stored both stay at rest until both are stored', async () => {
    const { store, sent, atRest } = sendingWorld();
    const first = sent('one');
    const second = sent('two');
    // The second is stored first: the first is still only at rest as a draft.
    second();
    expect(await atRest()).toBe('one');
    first();
    await atRest();
    expect(store.rows.size).toBe(0);
  });

  it('leaves out and removes records that do not parse or no longer open (keys wiped since)', async () => {
    const store = memoryDrafts();
    const old = new Drafts(ME, store, testSealing(), EMPTY_OUTBOX);
    old.set(BOB, 'sealed under a key gone since');
    await old.flushAll();
    store.rows.set('junk', { id: 'junk', userId: ME, peerId: CAROL });

    const drafts = new Drafts(ME, store, testSealing(), EMPTY_OUTBOX);
    await drafts.load();
    expect(drafts.get(BOB)).toBe('');
    expect(drafts.get(CAROL)).toBe('');
    await vi.runAllTimersAsync();
    expect(store.rows.has(draftId(ME, BOB))).toBe(false);
  });

  it('tells its listeners, and writes nothing more once stopped (sign-out)', async () => {
    const store = memoryDrafts();
    const drafts = new Drafts(ME, store, testSealing(), EMPTY_OUTBOX);
    const heard = vi.fn();
    drafts.subscribe(heard);
    drafts.set(BOB, 'typed');
    expect(heard).toHaveBeenCalledTimes(1);
    await drafts.stop();
    expect(drafts.get(BOB)).toBe('');
    drafts.set(BOB, 'after');
    await vi.runAllTimersAsync();
    await drafts.flushAll();
    expect(store.writes).toBe(0);
    expect(drafts.get(BOB)).toBe('');
  });

  it('keeps drafts in memory only where nothing can be sealed at rest (no IndexedDB)', async () => {
    const store = memoryDrafts();
    const drafts = new Drafts(ME, store, { seal: async () => null, open: async () => null }, EMPTY_OUTBOX);
    drafts.set(BOB, 'in memory');
    await drafts.flush(BOB);
    expect(store.rows.size).toBe(0);
    expect(drafts.get(BOB)).toBe('in memory');
  });
});

/**
 * One's own messages from before end-to-end encryption, re-encrypted in the background
 * (docs/e2ee.md). After sign-in, `sweep` pages every one of them the server still holds in
 * the clear (`legacyOwn`, the locked chats left out), and each loaded page of a chat offers
 * its own too (`offer`: a locked chat's, once its PIN is given). Each is sealed as revision 0
 * under the chat's current key and sent back with `migrate`, a batch per frame (paced like
 * every write), so the server stops holding its text. A chat with no key yet, or one older
 * than either person's keys, gets its next key with the first batch. A chat whose other
 * person has no keys (not signed in since encryption, or a deleted account) waits: its
 * messages are counted as waiting, and the next sign-in tries again. The sweep's progress is
 * what the chat list shows (`progress`).
 */
import { type ChatMessage, LEGACY_PAGE, MIGRATE_BATCH, peerOf } from '@app/protocol';
import { type ChatKeys, loadE2ee, type SendingKey } from '../keys/chat-keys';
import { type ChatSocket, RequestError } from '../socket/chat-socket';
import { clearAllowed } from './believable';

/** Stays well inside the server's frame limit with room for the frame's own fields. */
const MAX_BATCH_CHARS = 40_000;

export interface LegacyMigrationDeps {
  userId: string;
  socket: Pick<ChatSocket, 'request'>;
  keys: ChatKeys;
  /** A message is now stored sealed: `ct` replaces its legacy text (the same words). */
  migrated(m: ChatMessage, text: string): void;
  changed(): void;
}

/** The sweep after sign-in, for the chat list. */
export interface LegacyProgress {
  /** Own messages in the clear when it began (the locked chats' left out). */
  total: number;
  /** Re-encrypted since. */
  done: number;
  /** Left in the clear for now: their chat's other person has no keys yet (or is gone). */
  waiting: number;
  /** Still going. */
  running: boolean;
}

export const NO_LEGACY: LegacyProgress = { total: 0, done: 0, waiting: 0, running: false };

/** What became of one chat's messages: re-encrypted, or left in the clear for now. */
interface ChatOutcome {
  migrated: number;
  waiting: number;
}

export class LegacyMigration {
  private readonly d: LegacyMigrationDeps;
  /** By chat: the messages offered by loaded pages, waiting, by id. */
  private readonly waiting = new Map<string, Map<string, ChatMessage>>();
  /** Offered once per page load: ids sent or being sent. */
  private readonly taken = new Set<string>();
  /**
   * Ids this tab re-encrypted, or found it may not seal as its own (a retry after a failure
   * part-way leaves them out).
   */
  private readonly settled = new Set<string>();
  /** One chat at a time, the sweep's and the pages' alike. */
  private queue: Promise<unknown> = Promise.resolve();
  private running = false;
  private sweeping = false;
  private swept = false;
  private state: LegacyProgress = NO_LEGACY;

  constructor(deps: LegacyMigrationDeps) {
    this.d = deps;
  }

  progress(): LegacyProgress {
    return this.state;
  }

  /** A loaded message: queued when it is this user's, in the clear, and not deleted. */
  offer(m: ChatMessage): void {
    if (!this.mine(m)) return;
    this.taken.add(m.id);
    const chat = this.waiting.get(m.chatId) ?? new Map<string, ChatMessage>();
    chat.set(m.id, m);
    this.waiting.set(m.chatId, chat);
    if (!this.running) {
      this.running = true;
      // After the page that offered it has rendered.
      setTimeout(() => void this.run(), 0);
    }
  }

  /**
   * After sign-in (each welcome until one sweep has gone through): every own message the
   * server still holds in the clear, page by page. A failure (offline, no keys in this
   * browser yet) leaves it for the next welcome.
   */
  async sweep(): Promise<void> {
    if (this.sweeping || this.swept) return;
    this.sweeping = true;
    try {
      // An account made with keys never had messages in the clear: nothing to ask for.
      const started = (await this.d.keys.me())?.started;
      if (!started) return;
      if (!started.legacy) {
        this.swept = true;
        return;
      }
      let after: { chatId: string; msgId: string } | undefined;
      for (let first = true; ; first = false) {
        const page = await this.d.socket.request('legacyOwn', after ? { after } : {});
        // Nothing to do (most accounts): nothing changes, nothing re-renders.
        if (first && page.total) this.set({ total: page.total, done: 0, waiting: 0, running: true });
        for (const [chatId, messages] of byChat(page.messages.filter((m) => this.mine(m)))) {
          for (const m of messages) this.taken.add(m.id);
          await this.inQueue(() => this.migrateChat(chatId, messages)).catch((e: unknown) => {
            // Offered again by the next sweep (what was re-encrypted meanwhile is settled).
            for (const m of messages) if (!this.settled.has(m.id)) this.taken.delete(m.id);
            throw e;
          });
        }
        const last = page.messages.at(-1);
        if (!last || page.messages.length < LEGACY_PAGE) break;
        after = { chatId: last.chatId, msgId: last.id };
      }
      this.swept = true;
    } catch {
      // The next welcome sweeps again (what was done is no longer in the clear).
    } finally {
      this.sweeping = false;
      if (this.state.running) this.set({ ...this.state, running: false });
    }
  }

  private mine(m: ChatMessage): boolean {
    return (
      m.senderId === this.d.userId && m.ct === null && m.legacyText !== null && !m.deleted && !this.taken.has(m.id)
    );
  }

  private set(p: LegacyProgress): void {
    this.state = p;
    this.d.changed();
  }

  private inQueue<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work);
    this.queue = next.catch(() => {});
    return next;
  }

  /** Works through the offered chats one at a time (messages offered meanwhile join the queue). */
  private async run(): Promise<void> {
    for (const [chatId, messages] of this.waiting) {
      this.waiting.delete(chatId);
      const offered = [...messages.values()];
      await this.inQueue(() => this.migrateChat(chatId, offered)).catch(() => {
        // Offered again at the next load of its page.
        for (const m of offered) this.taken.delete(m.id);
      });
    }
    this.running = false;
  }

  /**
   * A chat's messages, with one retry when its key moved on meanwhile (another key won, keys
   * changed). While the sweep runs, what became of them counts in its progress.
   */
  private async migrateChat(chatId: string, offered: ChatMessage[]): Promise<void> {
    const outcome: ChatOutcome = { migrated: 0, waiting: 0 };
    const left = () => offered.filter((m) => !this.settled.has(m.id));
    try {
      await this.migrateOnce(chatId, offered, outcome).catch((e: unknown) => {
        const code = e instanceof RequestError ? e.code : null;
        if (code !== 'rekey_required' && code !== 'conflict') throw e;
        this.d.keys.invalidate(chatId, peerOf(chatId, this.d.userId));
        return this.migrateOnce(chatId, left(), outcome);
      });
    } catch (e) {
      if (!(e instanceof RequestError && e.code === 'recipient_no_keys')) throw e;
      outcome.waiting += left().length;
    } finally {
      if (this.sweeping) {
        const { done, waiting } = this.state;
        this.set({ ...this.state, done: done + outcome.migrated, waiting: waiting + outcome.waiting });
      }
    }
  }

  private async migrateOnce(chatId: string, offered: ChatMessage[], outcome: ChatOutcome): Promise<void> {
    const { userId, keys } = this.d;
    const peerId = peerOf(chatId, userId);
    // Only what this account can have sent in the clear, as its sealed keys say (not as the
    // server says, for a bundle that does not say yet): sealing a row the server made up would
    // make it a message of ours (believable.ts clearAllowed). Sealed marked as from before
    // encryption, so its recipient still sees it was once in the clear.
    const started = (await keys.me())?.started ?? null;
    if (!started) throw new RequestError('forbidden', 'This browser has no keys yet');
    const messages: ChatMessage[] = [];
    for (const m of offered) {
      if (await clearAllowed(started, m.timestamp)) messages.push(m);
      else {
        // Not believable as ours: never sealed as ours, so it stays as it is.
        this.settled.add(m.id);
        outcome.waiting++;
      }
    }
    if (messages.length === 0) return;
    const sending = await keys.sendingKey(peerId);
    const e2ee = await loadE2ee();
    let batch: { m: ChatMessage; ct: string }[] = [];
    let chars = 0;
    // The chat's next key goes with the first batch only.
    let bringing: SendingKey['chatKey'] = sending.chatKey;
    const flush = async () => {
      if (batch.length === 0) return;
      const items = batch.map(({ m, ct }) => ({ msgId: m.id, ct }));
      const done = batch;
      batch = [];
      chars = 0;
      const { migrated } = await this.d.socket.request('migrate', {
        chatId,
        items,
        ...(bringing ? { chatKey: bringing } : {}),
      });
      if (bringing) keys.accepted(bringing, sending.key);
      bringing = undefined;
      // Only what the server took (a message deleted or sealed meanwhile stays as the server has it).
      const took = new Set(migrated);
      for (const { m, ct } of done) {
        if (!took.has(m.id)) continue;
        this.settled.add(m.id);
        outcome.migrated++;
        this.d.migrated({ ...m, ct, rev: 0, legacyText: null }, m.legacyText ?? '');
      }
    };
    for (const m of messages) {
      const place = { chatId, msgId: m.id, senderId: userId, recipientId: peerId };
      const ct = await e2ee.encryptClearBefore(
        sending.key,
        place,
        { epoch: sending.epoch, rev: 0 },
        m.legacyText ?? '',
      );
      if (batch.length === MIGRATE_BATCH || chars + ct.length > MAX_BATCH_CHARS) await flush();
      batch.push({ m, ct });
      chars += ct.length;
    }
    await flush();
  }
}

/** Messages grouped by chat, in the order they came. */
function byChat(messages: ChatMessage[]): Map<string, ChatMessage[]> {
  const out = new Map<string, ChatMessage[]>();
  for (const m of messages) {
    const list = out.get(m.chatId) ?? [];
    list.push(m);
    out.set(m.chatId, list);
  }
  return out;
}

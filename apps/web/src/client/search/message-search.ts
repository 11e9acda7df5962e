/**
 * Message search for a ChatClient (docs/search.md). Matches come from this browser's own
 * history: every message it opens (on screen, in a preview) goes into the index, an edit
 * replaces it, a deletion takes it out; and the history it has not opened is read in the
 * background, one page at a time with a pause between pages, newest first, until each chat
 * is read to its start (or caught up with what was indexed before). The index is kept sealed
 * at rest (search-store.ts) and wiped at sign-out. Locked chats are neither read in the
 * background nor searched from the chat list.
 */
import { type ChatMessage, type ChatSummary, HISTORY_PAGE } from '@app/protocol';
import { logged } from '@/lib/log';
import type { SealedRef, Shown } from '../crypto/message-crypto';
import type { LocalSealing } from '../keys/local-keys';
import { type ChatSocket, RequestError } from '../socket/chat-socket';
import { type SearchHit, SearchIndex } from './search-index';
import { loadChats, type SearchStore, storeChat } from './search-store';

/** Between two pages of background indexing (ms): about 100 messages a second at most. */
export const PAGE_GAP_MS = 500;
/** How long after a change a chat's part of the index is written (ms). */
const SAVE_MS = 1000;

export interface SearchStatus {
  /** Background indexing is going on (or paused). */
  indexing: boolean;
  paused: boolean;
  /** Chats read so far this round, of `total`. */
  done: number;
  total: number;
}

export interface MessageSearchDeps {
  userId: string;
  socket: Pick<ChatSocket, 'request' | 'status'>;
  /** Opens a message without keeping it (MessageCrypto.read). */
  read(m: SealedRef): Promise<Shown>;
  /** The user's chats now (the chat list). */
  chats(): readonly ChatSummary[];
  /** The chat list is loaded. */
  listReady(): boolean;
  local: LocalSealing;
  store: SearchStore;
  changed(): void;
}

const IDLE: SearchStatus = Object.freeze({ indexing: false, paused: false, done: 0, total: 0 });

export class MessageSearch {
  readonly index = new SearchIndex();
  private readonly d: MessageSearchDeps;
  private readonly complete = new Set<string>();
  private readonly saves = new Map<string, ReturnType<typeof setTimeout>>();
  private status: SearchStatus = IDLE;
  private running = false;
  /** A round is due (set at each connection, cleared when it starts). */
  private due = false;
  private paused = false;
  private stopped = false;
  private wake: (() => void) | null = null;
  private loaded: Promise<void> | null = null;

  constructor(deps: MessageSearchDeps) {
    this.d = deps;
  }

  /** Reads the index at rest (once). */
  load(): Promise<void> {
    this.loaded ??= loadChats(this.d.store, this.d.local, this.d.userId)
      .then((chats) => {
        for (const c of chats) {
          for (const m of c.messages) this.index.put(m);
          if (c.complete) this.complete.add(c.chatId);
        }
        this.d.changed();
      })
      .catch(logged('search', 'load the index'));
    return this.loaded;
  }

  /** What a tab showed of a message: its text goes in (or replaces an older revision), a deletion out. */
  note(r: SealedRef, s: Shown): void {
    if (this.stopped) return;
    if (s.kind === 'text') {
      const changed = this.index.put({
        chatId: r.chatId,
        msgId: r.id,
        senderId: r.senderId,
        timestamp: r.timestamp,
        rev: r.rev,
        text: s.text,
      });
      if (changed) this.save(r.chatId);
    } else if (s.kind === 'deleted' && this.index.remove(r.chatId, r.id)) this.save(r.chatId);
  }

  /**
   * A message as the server has it now (an update): a deletion leaves the index at once; an
   * edit drops the older text (the new one goes in when it is opened).
   */
  updated(m: ChatMessage): void {
    if (this.stopped || !this.index.has(m.chatId, m.id, 0) || this.index.has(m.chatId, m.id, m.rev)) return;
    if (this.index.remove(m.chatId, m.id)) this.save(m.chatId);
  }

  search(query: string, options: { chatId?: string; limit?: number } = {}): SearchHit[] {
    if (options.chatId !== undefined) return this.index.search(query, options);
    // From the chat list: only chats on it and not locked (locked ones stay behind their PIN).
    const open = new Set(this.d.chats().flatMap((c) => (c.locked ? [] : [c.chatId])));
    return this.index.search(query, { ...options, include: (id) => open.has(id) });
  }

  getStatus(): SearchStatus {
    return this.status;
  }

  pause(): void {
    this.paused = true;
    this.setStatus({ paused: true });
  }

  resume(): void {
    this.paused = false;
    this.setStatus({ paused: false });
    this.wake?.();
    this.start();
  }

  /** Stops for good (sign-out, or the tab's client replaced): nothing is read, indexed or written after. */
  stop(): void {
    this.stopped = true;
    this.wake?.();
    for (const t of this.saves.values()) clearTimeout(t);
    this.saves.clear();
  }

  /** A round of background indexing is due (a new connection, its chat list loaded). */
  roundDue(): void {
    this.due = true;
    this.start();
  }

  /** Starts the round that is due, when online, the list is loaded, not paused, and none runs. */
  start(): void {
    if (!this.due || this.running || this.paused || this.stopped) return;
    if (this.d.socket.status !== 'online' || !this.d.listReady()) return;
    this.due = false;
    this.running = true;
    void this.round()
      .catch(logged('search', 'index older messages'))
      .finally(() => {
        this.running = false;
        this.setStatus(this.paused ? { indexing: true } : { indexing: false });
      });
  }

  private setStatus(change: Partial<SearchStatus>): void {
    this.status = { ...this.status, ...change };
    this.d.changed();
  }

  /** Every chat not locked: read until caught up or to its start. */
  private async round(): Promise<void> {
    await this.load();
    const chats = this.d.chats().filter((c) => !c.locked && c.last !== null);
    this.setStatus({ indexing: true, done: 0, total: chats.length });
    for (const [i, c] of chats.entries()) {
      if (this.stopped) return;
      await this.readChat(c);
      this.setStatus({ done: i + 1 });
    }
  }

  /** Pages of one chat, newest first, until a page held already in a chat read to its start, or its start. */
  private async readChat(c: ChatSummary): Promise<void> {
    let before: { timestamp: number; id: string } | undefined;
    for (;;) {
      await this.gap();
      if (this.stopped || this.d.socket.status !== 'online') return;
      const page = await this.page(c.peerId, before);
      if (!page) return;
      const fresh = await this.indexPage(page.messages);
      if (fresh === null) return;
      const oldest = page.messages[0];
      if (!page.hasMore || !oldest) {
        this.complete.add(c.chatId);
        this.save(c.chatId);
        return;
      }
      if (fresh === 0 && this.complete.has(c.chatId)) return;
      before = { timestamp: oldest.timestamp, id: oldest.id };
    }
  }

  /** A page of history before `before`; null when the chat is locked or gone meanwhile (offline throws). */
  private async page(peerId: string, before?: { timestamp: number; id: string }) {
    try {
      return await this.d.socket.request('history', { peerId, limit: HISTORY_PAGE, ...(before ? { before } : {}) });
    } catch (e) {
      if (e instanceof RequestError && (e.code === 'locked' || e.code === 'not_found')) return null;
      throw e;
    }
  }

  /** Indexes a page's messages: how many were new, or null once stopped. */
  private async indexPage(messages: readonly ChatMessage[]): Promise<number | null> {
    let fresh = 0;
    for (const m of messages) {
      if (this.stopped) return null;
      if (await this.indexMessage(m)) fresh += 1;
    }
    return fresh;
  }

  /** Opens and indexes one message unless held at this revision already; whether it was new. */
  private async indexMessage(m: ChatMessage): Promise<boolean> {
    if (this.index.has(m.chatId, m.id, m.rev)) return false;
    if (m.deleted) return this.index.remove(m.chatId, m.id);
    const shown = await this.d.read(m).catch(() => null);
    if (shown?.kind !== 'text') return false;
    this.note(m, shown);
    return true;
  }

  /** The pause between pages; longer while paused (until resumed or stopped). */
  private async gap(): Promise<void> {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, PAGE_GAP_MS);
      this.wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
    while (this.paused && !this.stopped) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
    this.wake = null;
  }

  /** Writes a chat's part of the index a moment after its last change. */
  private save(chatId: string): void {
    if (this.stopped) return;
    const t = this.saves.get(chatId);
    if (t) clearTimeout(t);
    this.saves.set(
      chatId,
      setTimeout(() => {
        this.saves.delete(chatId);
        const chat = { chatId, messages: this.index.messagesOf(chatId), complete: this.complete.has(chatId) };
        storeChat(this.d.store, this.d.local, this.d.userId, chat).catch(logged('search', 'store the index'));
      }, SAVE_MS),
    );
  }
}

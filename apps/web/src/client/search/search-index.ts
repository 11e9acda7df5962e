/**
 * The search index of one browser (docs/search.md): every message this browser has opened,
 * by chat, with its text folded for matching (lower case, accents off), so a search is a
 * substring scan over what the user could read anyway. Kept in memory; search-store.ts
 * keeps it sealed at rest. A scan of 100,000 messages takes a few milliseconds (npm run
 * bench:search), so there is no token index to keep in step with edits.
 */

/** A message as indexed: where it is, who wrote it, when, which revision, what it says. */
export interface IndexedMessage {
  chatId: string;
  msgId: string;
  senderId: string;
  timestamp: number;
  rev: number;
  text: string;
}

interface Entry extends IndexedMessage {
  folded: string;
}

/** A search result: the message, and where in its text the query matched (-1: not locatable there). */
export interface SearchHit {
  message: IndexedMessage;
  at: number;
  length: number;
}

const MARKS = /\p{M}/gu;

/** `s` for matching: accents and other combining marks off, lower case. */
export function fold(s: string): string {
  return s.normalize('NFD').replace(MARKS, '').toLowerCase();
}

export class SearchIndex {
  private readonly chats = new Map<string, Map<string, Entry>>();
  private count = 0;
  private changes = 0;

  get size(): number {
    return this.count;
  }

  /** Goes up with every change (a screen searches again when it does). */
  get version(): number {
    return this.changes;
  }

  /** Adds or replaces a message (an older revision than the one held is ignored). Returns whether it changed. */
  put(m: IndexedMessage): boolean {
    let chat = this.chats.get(m.chatId);
    if (!chat) {
      chat = new Map();
      this.chats.set(m.chatId, chat);
    }
    const held = chat.get(m.msgId);
    if (held && (held.rev > m.rev || (held.rev === m.rev && held.text === m.text))) return false;
    if (!held) this.count += 1;
    chat.set(m.msgId, { ...m, folded: fold(m.text) });
    this.changes += 1;
    return true;
  }

  /** Whether a message is held at revision `rev` (or a later one). */
  has(chatId: string, msgId: string, rev: number): boolean {
    return (this.chats.get(chatId)?.get(msgId)?.rev ?? -1) >= rev;
  }

  /** Drops a message (deleted). Returns whether it was held. */
  remove(chatId: string, msgId: string): boolean {
    const removed = this.chats.get(chatId)?.delete(msgId) ?? false;
    if (removed) {
      this.count -= 1;
      this.changes += 1;
    }
    return removed;
  }

  /** The messages held of a chat (to store them). */
  messagesOf(chatId: string): IndexedMessage[] {
    return [...(this.chats.get(chatId)?.values() ?? [])].map(({ folded: _, ...m }) => m);
  }

  /**
   * The messages whose text holds `query` (folded, trimmed; at least one character), newest
   * first, at most `limit`; in one chat, or in every chat `include` lets through.
   */
  search(
    query: string,
    options: { chatId?: string; limit?: number; include?: (chatId: string) => boolean } = {},
  ): SearchHit[] {
    const q = fold(query.trim());
    if (!q) return [];
    const limit = options.limit ?? 50;
    const hits: { e: Entry; at: number }[] = [];
    const chats =
      options.chatId !== undefined
        ? [this.chats.get(options.chatId)]
        : [...this.chats.entries()].map(([id, c]) => (options.include?.(id) === false ? undefined : c));
    for (const chat of chats) {
      if (!chat) continue;
      for (const e of chat.values()) {
        const at = e.folded.indexOf(q);
        if (at >= 0) hits.push({ e, at });
      }
    }
    hits.sort((a, b) => b.e.timestamp - a.e.timestamp || (a.e.msgId < b.e.msgId ? 1 : -1));
    return hits.slice(0, limit).map(({ e, at }) => {
      const { folded, ...message } = e;
      // Folding kept the length: the match is at the same place in the text.
      const same = folded.length === message.text.length;
      return { message, at: same ? at : -1, length: q.length };
    });
  }
}

/** The text around a hit, at most `width` characters, with the match's place in it ('…' where cut). */
export function snippet(hit: SearchHit, width = 80): { before: string; match: string; after: string } {
  const { text } = hit.message;
  const flat = text.replace(/\s+/g, ' ');
  if (hit.at < 0 || flat.length !== text.length) return { before: '', match: '', after: flat.slice(0, width) };
  const start = Math.max(0, hit.at - Math.floor((width - hit.length) / 3));
  const end = Math.min(flat.length, start + width);
  return {
    before: (start > 0 ? '…' : '') + flat.slice(start, hit.at),
    match: flat.slice(hit.at, hit.at + hit.length),
    after: flat.slice(hit.at + hit.length, end) + (end < flat.length ? '…' : ''),
  };
}

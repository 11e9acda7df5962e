/**
 * The reactions a ChatClient knows (protocol reactions.ts): by chat and message, each
 * person's sealed emoji as the server relayed it, from history pages and the update log;
 * and what each says, opened here under the chat's key (never stored) and kept by
 * ciphertext. A reaction that does not open (changed, moved to another message or person)
 * is left out, never shown as bytes. A message's list is the same array until it changes,
 * so React reads it as a snapshot.
 */
import { peerOf, type Reaction } from '@app/protocol';
import type { ChatKeys } from './keys/chat-keys';
import { loadE2ee } from './keys/chat-keys';
import { RequestError } from './socket/chat-socket';

/** One person's reaction as shown: who, which emoji, when. */
export interface ShownReaction {
  userId: string;
  emoji: string;
  at: number;
}

/** No reactions (one array for every message without any). */
export const NO_REACTIONS: readonly ShownReaction[] = Object.freeze([]);

export class Reactions {
  /** chatId → msgId → userId → the sealed reaction. */
  private readonly sealed = new Map<string, Map<string, Map<string, Reaction>>>();
  /** What each ciphertext says: its emoji, or null (it does not open here). */
  private readonly emojiOf = new Map<string, string | null>();
  /** chatId/msgId → the shown list, rebuilt when it changes. */
  private readonly shownCache = new Map<string, readonly ShownReaction[]>();
  private readonly keys: ChatKeys;
  private readonly changed: () => void;

  constructor(keys: ChatKeys, changed: () => void) {
    this.keys = keys;
    this.changed = changed;
  }

  private messageMap(chatId: string, msgId: string): Map<string, Reaction> {
    let chat = this.sealed.get(chatId);
    if (!chat) {
      chat = new Map();
      this.sealed.set(chatId, chat);
    }
    let m = chat.get(msgId);
    if (!m) {
      m = new Map();
      chat.set(msgId, m);
    }
    return m;
  }

  /** A reaction as it is now (an update, or the answer to one's own). An older one than held is ignored. */
  apply(r: Reaction): void {
    const held = this.sealed.get(r.chatId)?.get(r.msgId)?.get(r.userId);
    if (held && held.at > r.at) return;
    if (r.ct === null) this.sealed.get(r.chatId)?.get(r.msgId)?.delete(r.userId);
    else this.messageMap(r.chatId, r.msgId).set(r.userId, r);
    this.shownCache.delete(`${r.chatId}/${r.msgId}`);
  }

  /**
   * A history page: its messages' reactions are what it says (updates that came while it
   * loaded are applied again after it: Conversations' replay).
   */
  page(chatId: string, msgIds: readonly string[], reactions: readonly Reaction[]): void {
    const chat = this.sealed.get(chatId);
    for (const msgId of msgIds) {
      chat?.delete(msgId);
      this.shownCache.delete(`${chatId}/${msgId}`);
    }
    for (const r of reactions) this.apply(r);
  }

  /** The user's own emoji on a message, if any is open here. */
  mine(chatId: string, msgId: string, me: string): string | null {
    return this.of(chatId, msgId).find((r) => r.userId === me)?.emoji ?? null;
  }

  /** The reactions to a message that opened here, oldest first (starts opening the others). */
  of(chatId: string, msgId: string): readonly ShownReaction[] {
    const k = `${chatId}/${msgId}`;
    const hit = this.shownCache.get(k);
    if (hit) return hit;
    const m = this.sealed.get(chatId)?.get(msgId);
    if (!m || m.size === 0) return NO_REACTIONS;
    const out: ShownReaction[] = [];
    for (const r of m.values()) {
      const ct = r.ct as string;
      if (!this.emojiOf.has(ct)) {
        this.open(r);
        continue;
      }
      const emoji = this.emojiOf.get(ct);
      if (emoji) out.push({ userId: r.userId, emoji, at: r.at });
    }
    out.sort((a, b) => a.at - b.at);
    const list = out.length === 0 ? NO_REACTIONS : out;
    // The same list until something changes (one still opening drops it when it is open).
    this.shownCache.set(k, list);
    return list;
  }

  /** Promises of reactions being opened, by ciphertext. */
  private readonly opening = new Map<string, Promise<void>>();

  /** Resolves once `r` is opened (or failed to): of() then says it. */
  async opened(r: Reaction): Promise<void> {
    if (r.ct === null || this.emojiOf.has(r.ct)) return;
    this.open(r);
    await this.opening.get(r.ct);
  }

  private open(r: Reaction): void {
    const ct = r.ct as string;
    if (this.opening.has(ct)) return;
    const job = (async () => {
      // null: it does not open here (not a participant's, changed or moved, no key for it);
      // undefined: not checked now (its keys could not be fetched), tried again when next shown.
      let emoji: string | null | undefined = null;
      try {
        const [a, b] = r.chatId.split('_');
        if (r.userId === a || r.userId === b) {
          const e2ee = await loadE2ee();
          const key = await this.keys.keyFor(r.chatId, e2ee.reactionEpoch(ct));
          if (key)
            emoji = await e2ee.decryptReaction(key, { chatId: r.chatId, msgId: r.msgId, reactorId: r.userId }, ct);
        }
      } catch (e) {
        emoji = e instanceof RequestError ? undefined : null;
      }
      this.opening.delete(ct);
      if (emoji !== undefined) this.emojiOf.set(ct, emoji);
      this.shownCache.delete(`${r.chatId}/${r.msgId}`);
      if (emoji !== undefined) this.changed();
    })();
    this.opening.set(ct, job);
  }

  /**
   * Seals `emoji` as `me`'s reaction to a message, under the chat's newest key; refused,
   * as a send is, while the peer's identity changed since the user confirmed it.
   */
  async seal(chatId: string, msgId: string, me: string, emoji: string): Promise<string> {
    await this.keys.assertNotChanged(peerOf(chatId, me));
    const e2ee = await loadE2ee();
    const newest = await this.keys.newest(chatId);
    if (!newest) throw new Error('This chat has no key yet.');
    const ct = await e2ee.encryptReaction(newest.key, { chatId, msgId, reactorId: me }, newest.epoch, emoji);
    this.emojiOf.set(ct, emoji);
    return ct;
  }

  /** Opens everything again (the account's keys changed). */
  reset(): void {
    for (const [ct, emoji] of this.emojiOf) if (emoji === null) this.emojiOf.delete(ct);
    this.shownCache.clear();
  }
}

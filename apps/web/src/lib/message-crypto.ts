/**
 * What a message says, in this tab (end-to-end encryption, design e2ee.md 2.4, 2.6). The
 * server relays ciphertext; the caches of the ChatClient keep messages as they came, and
 * the screens ask here for their text: opened once per message revision, kept in memory
 * (never stored), and the screens told when it is ready. A ciphertext that does not open
 * (changed, moved to another message, chat, sender or revision, or under a key whose
 * signature fails) is shown as "This message couldn't be verified", never as bytes.
 */
import { type ChatMessage, type ChatSummary, chatIdOf, DELETED_TEXT, peerOf } from '@app/protocol';
import { RequestError } from './chat-socket';
import { type ChatKeys, loadE2ee } from './keys/chat-keys';
import type { SealedSend } from './outbox-queue';

/** Where a sealed text is and what the server says of it: a message, a preview, a request. */
export interface SealedRef {
  chatId: string;
  id: string;
  senderId: string;
  recipientId: string;
  ct: string | null;
  rev: number;
  legacyText: string | null;
  deleted: boolean;
  /** The text this tab already knows (its own message, sent or waiting). */
  localText?: string;
}

export type Shown =
  | { kind: 'text'; text: string }
  | { kind: 'opening' }
  | { kind: 'unverified' }
  | { kind: 'deleted' }
  /** Not sent to this tab: a locked chat without a PIN grant. */
  | { kind: 'withheld' }
  /** This browser does not hold the account's keys (signed in before it had them, or storage cleared). */
  | { kind: 'nokeys' }
  /** Sealed to keys from before a password reset, not unlocked (yet). */
  | { kind: 'locked' };

export const UNVERIFIED_TEXT = "This message couldn't be verified";
export const NO_KEYS_TEXT = '🔒 Sign in again on this browser to read this message';
export const LOCKED_TEXT = '🔒 Sent before your password reset';

/** A notice in place of the text (shown muted): it could not be read here. */
export function isNotice(s: Shown | null): boolean {
  return s?.kind === 'deleted' || s?.kind === 'unverified' || s?.kind === 'nokeys' || s?.kind === 'locked';
}

/** The words a bubble or a preview shows for `s` ('' while opening, or withheld). */
export function shownText(s: Shown | null): string {
  if (!s) return '';
  if (s.kind === 'text') return s.text;
  if (s.kind === 'deleted') return DELETED_TEXT;
  if (s.kind === 'unverified') return UNVERIFIED_TEXT;
  if (s.kind === 'nokeys') return NO_KEYS_TEXT;
  if (s.kind === 'locked') return LOCKED_TEXT;
  return '';
}

const OPENING: Shown = Object.freeze({ kind: 'opening' });
const UNVERIFIED: Shown = Object.freeze({ kind: 'unverified' });
const DELETED: Shown = Object.freeze({ kind: 'deleted' });
const WITHHELD: Shown = Object.freeze({ kind: 'withheld' });
const NO_KEYS: Shown = Object.freeze({ kind: 'nokeys' });
const LOCKED: Shown = Object.freeze({ kind: 'locked' });

/** The newest message of a chat summary, or null. */
export function refOfSummary(c: ChatSummary, me: string): SealedRef | null {
  if (!c.last) return null;
  return {
    chatId: c.chatId,
    id: c.last.id,
    senderId: c.last.senderId,
    recipientId: c.last.senderId ? peerOf(c.chatId, c.last.senderId) : me,
    ct: c.last.ct,
    rev: c.last.rev,
    legacyText: c.last.legacyText,
    deleted: c.last.deleted,
  };
}

/** A request's first message (or one's own waiting request). */
export function refOfRequest(
  r: { msgId: string; ct: string | null; legacyText: string | null },
  senderId: string,
  recipientId: string,
): SealedRef {
  const chatId = chatIdOf(senderId, recipientId);
  return { chatId, id: r.msgId, senderId, recipientId, ct: r.ct, rev: 0, legacyText: r.legacyText, deleted: false };
}

export class MessageCrypto {
  private readonly keys: ChatKeys;
  private readonly changed: () => void;
  /**
   * What a message says. Text this tab knows without opening (written here, or from before
   * encryption) is kept by chat, message and revision, with `ct` null; what was opened is
   * kept by those and the ciphertext itself. Two views of one revision can hold different
   * ciphertexts (the chat list's summary and the conversation's row, when the server's
   * copies disagree): each keeps its own entry, rather than each replacing the other's and
   * both opening again for ever.
   */
  private readonly cache = new Map<string, { ct: string | null; shown: Shown }>();

  constructor(keys: ChatKeys, changed: () => void) {
    this.keys = keys;
    this.changed = changed;
  }

  private static key(r: SealedRef): string {
    return `${r.chatId}/${r.id}/${r.rev}`;
  }

  /** The entry of `ct` opened as revision `k` (see `cache`). */
  private static opened(k: string, ct: string): string {
    return `${k}\n${ct}`;
  }

  /**
   * What to show for `r` now; starts opening it when it is not known yet. The same value
   * until it changes (React reads it as a snapshot).
   */
  shown(r: SealedRef): Shown {
    if (r.deleted) return DELETED;
    const k = MessageCrypto.key(r);
    const hit = this.cache.get(k);
    const known = r.localText ?? (r.ct === null ? r.legacyText : null);
    if (known !== null) {
      // Text this tab wrote, or a message from before encryption: nothing to open.
      if (hit?.ct === null && hit.shown.kind === 'text' && hit.shown.text === known) return hit.shown;
      const shown: Shown = { kind: 'text', text: known };
      this.cache.set(k, { ct: null, shown });
      return shown;
    }
    if (r.ct === null) return WITHHELD;
    if (hit?.ct === null) return hit.shown;
    const ct = r.ct;
    const ck = MessageCrypto.opened(k, ct);
    const opened = this.cache.get(ck);
    if (opened) return opened.shown;
    this.cache.set(ck, { ct, shown: OPENING });
    void this.decrypt(r, ct).then((shown) => {
      // Gone meanwhile: the keys changed (reset), and it opens again when next shown.
      if (!this.cache.has(ck)) return;
      // Not checked (the keys could not be fetched): tried again next time it is shown.
      if (shown === null) this.cache.delete(ck);
      else this.cache.set(ck, { ct, shown });
      this.changed();
    });
    return OPENING;
  }

  /** What `r` says, once opened (for a browser notification). */
  async open(r: SealedRef): Promise<Shown> {
    const now = this.shown(r);
    if (now.kind !== 'opening' || r.ct === null) return now;
    return (await this.decrypt(r, r.ct)) ?? OPENING;
  }

  /**
   * What `r` says, opened now if this tab has not opened it yet, without keeping it (an
   * export reads every message once): unlike open(), one that cannot be checked now (its
   * keys could not be fetched) throws rather than answering `opening`.
   */
  async read(r: SealedRef): Promise<Shown> {
    if (r.deleted) return DELETED;
    const known = r.localText ?? (r.ct === null ? r.legacyText : null);
    if (known !== null) return { kind: 'text', text: known };
    if (r.ct === null) return WITHHELD;
    const k = MessageCrypto.key(r);
    const hit = this.cache.get(k)?.ct === null ? this.cache.get(k) : this.cache.get(MessageCrypto.opened(k, r.ct));
    if (hit && hit.shown.kind !== 'opening') return hit.shown;
    const shown = await this.decrypt(r, r.ct);
    if (shown === null)
      throw new Error("Your messages' keys could not be fetched. Check your connection and try again.");
    return shown;
  }

  /** The text of `r` if this tab has it open already, else null (to copy, or to edit). */
  plainText(r: SealedRef): string | null {
    const s = this.shown(r);
    return s.kind === 'text' ? s.text : null;
  }

  /** What `ct` says; null when it could not be checked now (its keys could not be fetched). */
  private async decrypt(r: SealedRef, ct: string): Promise<Shown | null> {
    try {
      if (!(await this.keys.me())) return NO_KEYS;
      const e2ee = await loadE2ee();
      const { epoch } = e2ee.messageHeader(ct);
      const key = await this.keys.keyFor(r.chatId, epoch);
      if (!key) return (await this.keys.locked(r.chatId, epoch)) ? LOCKED : UNVERIFIED;
      const place = { chatId: r.chatId, msgId: r.id, senderId: r.senderId, recipientId: r.recipientId };
      const opened = await e2ee.decryptMessage(key, place, ct, { rev: r.rev });
      return { kind: 'text', text: opened.text };
    } catch (e) {
      return e instanceof RequestError ? null : UNVERIFIED;
    }
  }

  /** Opens everything again (this account's keys changed: earlier ones were unlocked). */
  reset(): void {
    this.keys.reset();
    for (const [k, v] of this.cache) if (v.ct !== null) this.cache.delete(k);
    this.changed();
  }

  /** This tab wrote `text` as revision `rev` of a message: no need to open it again. */
  remember(chatId: string, msgId: string, rev: number, text: string): void {
    this.cache.set(`${chatId}/${msgId}/${rev}`, { ct: null, shown: { kind: 'text', text } });
  }

  /** Seals a new message to `peerId` (with the chat's next key when it needs one). */
  async seal(me: string, peerId: string, msgId: string, text: string) {
    const e2ee = await loadE2ee();
    const sending = await this.keys.sendingKey(peerId);
    const place = { chatId: chatIdOf(me, peerId), msgId, senderId: me, recipientId: peerId };
    const ct = await e2ee.encryptMessage(sending.key, place, { epoch: sending.epoch, rev: 0 }, text);
    return { ct, sending };
  }

  /** A send for the outbox: sealed, and what to keep once the server has it (the key it brought, the text). */
  async sealSend(me: string, peerId: string, msgId: string, text: string): Promise<SealedSend> {
    const { ct, sending } = await this.seal(me, peerId, msgId, text);
    return {
      ct,
      ...(sending.chatKey ? { chatKey: sending.chatKey } : {}),
      accepted: () => {
        if (sending.chatKey) this.keys.accepted(sending.chatKey, sending.key);
        this.remember(chatIdOf(me, peerId), msgId, 0, text);
      },
    };
  }

  /** Seals the next revision of one's own message, under the chat's newest key. */
  async sealEdit(m: ChatMessage, text: string): Promise<string> {
    await this.keys.assertNotChanged(m.recipientId);
    const e2ee = await loadE2ee();
    const newest = await this.keys.newest(m.chatId);
    if (!newest) throw new Error('This chat has no key yet.');
    const place = { chatId: m.chatId, msgId: m.id, senderId: m.senderId, recipientId: m.recipientId };
    return e2ee.encryptMessage(newest.key, place, { epoch: newest.epoch, rev: m.rev + 1 }, text);
  }
}

/**
 * What a message says, in this tab (end-to-end encryption, docs/e2ee.md). The
 * server relays ciphertext; the caches of the ChatClient keep messages as they came, and
 * the screens ask here for their text: opened once per message revision, kept in memory
 * (never stored), and the screens told when it is ready. A ciphertext that does not open
 * (changed, moved to another message, chat, sender or revision, or under a key whose
 * signature fails) is shown as "This message couldn't be verified", never as bytes.
 */

import type { AttachmentRef, MessageContent, ReplyRef } from '@app/e2ee';
import { type ChatMessage, type ChatSummary, chatIdOf, DELETED_TEXT, peerOf } from '@app/protocol';
import { type ChatKeys, loadE2ee } from '../keys/chat-keys';
import type { SealedSend } from '../outbox/outbox-hooks';
import { RequestError } from '../socket/chat-socket';
import { bareDeletionAllowed, clearAllowed } from './believable';
import type { Revisions } from './revisions';

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
  /** When the server says it was sent (ms): a text in the clear is believed only from before encryption. */
  timestamp: number;
  /** What this tab already knows it says (its own message, sent or waiting). */
  local?: MessageContent;
}

export type Shown =
  /**
   * `clear`: sent before end-to-end encryption, stored in the clear (shown marked "Not
   * encrypted"); `reply`, `forwarded`: sealed with the text (e2ee message-content.ts).
   */
  | { kind: 'text'; text: string; clear?: true; reply?: ReplyRef; forwarded?: true; attachments?: AttachmentRef[] }
  | { kind: 'opening' }
  | { kind: 'unverified' }
  | { kind: 'deleted' }
  /** Not sent to this tab: a locked chat without a PIN grant. */
  | { kind: 'withheld' }
  /** This browser does not hold the account's keys (signed in before it had them, or storage cleared). */
  | { kind: 'nokeys' }
  /** Sealed to keys from before a password reset, not unlocked (yet). */
  | { kind: 'locked' }
  /** An older revision than this browser has seen (the server rolled it back): refused. */
  | { kind: 'rolledback' };

export const UNVERIFIED_TEXT = "This message couldn't be verified";
export const NO_KEYS_TEXT = '🔒 Sign in again on this browser to read this message';
export const LOCKED_TEXT = '🔒 Sent before your password reset';
export const ROLLED_BACK_TEXT = 'An older version of this message was refused';

const NOTICES: ReadonlySet<Shown['kind']> = new Set(['deleted', 'unverified', 'nokeys', 'locked', 'rolledback']);

/** A notice in place of the text (shown muted): it could not be read here. */
export function isNotice(s: Shown | null): boolean {
  return s !== null && NOTICES.has(s.kind);
}

/** A text to show, with its reply and forwarded mark (`clear`: from before end-to-end encryption, marked so). */
function textShown(c: MessageContent, clear = false): Shown {
  const shown: Shown = { kind: 'text', text: c.text };
  if (clear) shown.clear = true;
  if (c.reply) shown.reply = c.reply;
  if (c.forwarded) shown.forwarded = true;
  if (c.attachments?.length) shown.attachments = c.attachments;
  return shown;
}

/** What `s` says and carries, to seal again (an edit keeps the reply and the forwarded mark). */
function contentOf(s: Shown, text: string): MessageContent {
  const c: MessageContent = { text };
  if (s.kind === 'text' && s.reply) c.reply = s.reply;
  if (s.kind === 'text' && s.forwarded) c.forwarded = true;
  if (s.kind === 'text' && s.attachments) c.attachments = s.attachments;
  return c;
}

/** The words a bubble or a preview shows for `s` ('' while opening, or withheld). */
export function shownText(s: Shown | null): string {
  if (!s) return '';
  if (s.kind === 'text') return s.text;
  if (s.kind === 'deleted') return DELETED_TEXT;
  if (s.kind === 'unverified') return UNVERIFIED_TEXT;
  if (s.kind === 'nokeys') return NO_KEYS_TEXT;
  if (s.kind === 'locked') return LOCKED_TEXT;
  if (s.kind === 'rolledback') return ROLLED_BACK_TEXT;
  return '';
}

const OPENING: Shown = Object.freeze({ kind: 'opening' });
const UNVERIFIED: Shown = Object.freeze({ kind: 'unverified' });
const DELETED: Shown = Object.freeze({ kind: 'deleted' });
const WITHHELD: Shown = Object.freeze({ kind: 'withheld' });
const NO_KEYS: Shown = Object.freeze({ kind: 'nokeys' });
const LOCKED: Shown = Object.freeze({ kind: 'locked' });
const ROLLED_BACK: Shown = Object.freeze({ kind: 'rolledback' });

/** The newest message of a chat summary (sent at the chat's time), or null. */
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
    timestamp: c.timestamp,
  };
}

/** A request's first message (or one's own waiting request). */
export function refOfRequest(
  r: { msgId: string; ct: string | null; legacyText: string | null; timestamp: number },
  senderId: string,
  recipientId: string,
): SealedRef {
  const chatId = chatIdOf(senderId, recipientId);
  return {
    chatId,
    id: r.msgId,
    senderId,
    recipientId,
    ct: r.ct,
    rev: 0,
    legacyText: r.legacyText,
    deleted: false,
    timestamp: r.timestamp,
  };
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
  private readonly revisions: Revisions;

  /** Told what each message shown says, once it is known (the search index, search/message-search.ts). */
  private readonly seen: ((r: SealedRef, s: Shown) => void) | undefined;

  constructor(keys: ChatKeys, changed: () => void, revisions: Revisions, seen?: (r: SealedRef, s: Shown) => void) {
    this.keys = keys;
    this.changed = changed;
    this.revisions = revisions;
    this.seen = seen;
  }

  /** What `r` is keyed by beside its revision: its ciphertext, its text in the clear, or a bare deletion. */
  private static content(r: SealedRef): string {
    if (r.ct !== null) return r.ct;
    return r.deleted ? 'deleted:' : `clear:${r.legacyText}`;
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
   * until it changes (React reads it as a snapshot). A confirmed message's text (or
   * deletion) is told to `seen`.
   */
  shown(r: SealedRef): Shown {
    const s = this.shownNow(r);
    if (this.seen && r.local === undefined && (s.kind === 'text' || s.kind === 'deleted')) this.seen(r, s);
    return s;
  }

  private shownNow(r: SealedRef): Shown {
    const k = MessageCrypto.key(r);
    const hit = this.cache.get(k);
    const known = r.deleted ? null : (r.local ?? null);
    if (known !== null) {
      // Text this tab wrote: nothing to open.
      if (hit?.ct === null && hit.shown.kind === 'text' && hit.shown.text === known.text) return hit.shown;
      const shown = textShown(known);
      this.cache.set(k, { ct: null, shown });
      return shown;
    }
    if (!r.deleted && r.ct === null && r.legacyText === null) return WITHHELD;
    if (hit?.ct === null) return hit.shown;
    // A text in the clear (or a bare deletion) is keyed by itself, as a ciphertext is (see `cache`).
    const ct = MessageCrypto.content(r);
    const ck = MessageCrypto.opened(k, ct);
    const opened = this.cache.get(ck);
    if (opened) return opened.shown;
    this.cache.set(ck, { ct, shown: OPENING });
    void this.check(r).then((shown) => {
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
    if (now.kind !== 'opening') return now;
    return (await this.check(r)) ?? OPENING;
  }

  /**
   * What `r` says, opened now if this tab has not opened it yet, without keeping it (an
   * export reads every message once): unlike open(), one that cannot be checked now (its
   * keys could not be fetched) throws rather than answering `opening`.
   */
  async read(r: SealedRef): Promise<Shown> {
    if (!r.deleted && r.local !== undefined) return textShown(r.local);
    if (!r.deleted && r.ct === null && r.legacyText === null) return WITHHELD;
    const k = MessageCrypto.key(r);
    const ct = MessageCrypto.content(r);
    const hit = this.cache.get(k)?.ct === null ? this.cache.get(k) : this.cache.get(MessageCrypto.opened(k, ct));
    if (hit && hit.shown.kind !== 'opening') return hit.shown;
    const shown = await this.check(r);
    if (shown === null)
      throw new Error("Your messages' keys could not be fetched. Check your connection and try again.");
    return shown;
  }

  /** The text of `r` if this tab has it open already, else null (to copy, or to edit). */
  plainText(r: SealedRef): string | null {
    const s = this.shown(r);
    return s.kind === 'text' ? s.text : null;
  }

  /**
   * What `r` says, as far as this browser can tell; null: not checked now (its keys could
   * not be fetched). Its ciphertext says what it is: a text, or its sender's deletion
   * (whatever the server's flag). Without one, the server's word is all there is: a text
   * in the clear or a bare deletion is believed only where it can be from before (see
   * believable.ts), and shown as unverified otherwise. A revision older than one seen here
   * is refused (revisions.ts).
   */
  private async check(r: SealedRef): Promise<Shown | null> {
    try {
      const me = await this.keys.me();
      if (!me) return NO_KEYS;
      if (r.rev < (await this.revisions.seen(r.chatId, r.id))) return ROLLED_BACK;
      let shown: Shown | null;
      if (r.ct !== null) shown = await this.decrypt(r, r.ct);
      else if (r.deleted) shown = bareDeletionAllowed(me.started, r.timestamp) ? DELETED : UNVERIFIED;
      else
        shown = (await clearAllowed(me.started, r.timestamp))
          ? textShown({ text: r.legacyText ?? '' }, true)
          : UNVERIFIED;
      if (shown?.kind === 'text' || shown?.kind === 'deleted') await this.revisions.saw(r.chatId, r.id, r.rev);
      return shown;
    } catch (e) {
      return e instanceof RequestError ? null : UNVERIFIED;
    }
  }

  /** What `ct` says (a text, or a tombstone: deleted); null when its keys could not be fetched now. */
  private async decrypt(r: SealedRef, ct: string): Promise<Shown | null> {
    const e2ee = await loadE2ee();
    const { epoch } = e2ee.messageHeader(ct);
    const key = await this.keys.keyFor(r.chatId, epoch);
    if (!key) return (await this.keys.locked(r.chatId, epoch)) ? LOCKED : UNVERIFIED;
    const place = { chatId: r.chatId, msgId: r.id, senderId: r.senderId, recipientId: r.recipientId };
    const opened = await e2ee.decryptMessage(key, place, ct, { rev: r.rev });
    return opened.deleted ? DELETED : textShown(opened, opened.clear);
  }

  /** Opens everything again (this account's keys changed: earlier ones were unlocked). */
  reset(): void {
    this.keys.reset();
    for (const [k, v] of this.cache) if (v.ct !== null) this.cache.delete(k);
    this.changed();
  }

  /**
   * This tab wrote `content` as revision `rev` of a message: no need to open it again (`clear`:
   * a text from before encryption it has just sealed, still shown as not encrypted).
   */
  remember(chatId: string, msgId: string, rev: number, content: MessageContent, clear = false): void {
    this.cache.set(`${chatId}/${msgId}/${rev}`, { ct: null, shown: textShown(content, clear) });
    void this.revisions.saw(chatId, msgId, rev);
  }

  /** Seals a new message to `peerId` (with the chat's next key when it needs one). */
  async seal(me: string, peerId: string, msgId: string, content: MessageContent) {
    const e2ee = await loadE2ee();
    const sending = await this.keys.sendingKey(peerId);
    const place = { chatId: chatIdOf(me, peerId), msgId, senderId: me, recipientId: peerId };
    const ct = await e2ee.encryptMessage(sending.key, place, { epoch: sending.epoch, rev: 0 }, content);
    return { ct, sending };
  }

  /** A send for the outbox: sealed, and what to keep once the server has it (the key it brought, the text). */
  async sealSend(me: string, peerId: string, msgId: string, content: MessageContent): Promise<SealedSend> {
    const { ct, sending } = await this.seal(me, peerId, msgId, content);
    return {
      ct,
      ...(sending.chatKey ? { chatKey: sending.chatKey } : {}),
      accepted: () => {
        if (sending.chatKey) this.keys.accepted(sending.chatKey, sending.key);
        this.remember(chatIdOf(me, peerId), msgId, 0, content);
      },
    };
  }

  /**
   * Seals the next revision of one's own message, under the chat's newest key, keeping its
   * reply and forwarded mark. Returns the ciphertext and what it says.
   */
  async sealEdit(m: ChatMessage, text: string): Promise<{ ct: string; content: MessageContent }> {
    await this.keys.assertNotChanged(m.recipientId);
    const e2ee = await loadE2ee();
    const newest = await this.keys.newest(m.chatId);
    if (!newest) throw new Error('This chat has no key yet.');
    const place = { chatId: m.chatId, msgId: m.id, senderId: m.senderId, recipientId: m.recipientId };
    const content = contentOf(this.shown(m), text);
    return {
      ct: await e2ee.encryptMessage(newest.key, place, { epoch: newest.epoch, rev: m.rev + 1 }, content),
      content,
    };
  }

  /**
   * The tombstone of one's own message: its deletion sealed as the next revision, under the
   * chat's newest key; nothing in a chat without a key (all of it from before encryption).
   */
  async sealDelete(m: ChatMessage): Promise<{ ct?: string }> {
    const e2ee = await loadE2ee();
    if (!(await this.keys.me())) {
      throw new RequestError('forbidden', 'This browser has no keys: sign in again to unlock your messages.');
    }
    const newest = await this.keys.newest(m.chatId);
    if (!newest) {
      if (await this.keys.hasKeys(m.chatId))
        throw new RequestError('forbidden', "This chat's key could not be opened here.");
      return {};
    }
    const place = { chatId: m.chatId, msgId: m.id, senderId: m.senderId, recipientId: m.recipientId };
    return { ct: await e2ee.encryptTombstone(newest.key, place, { epoch: newest.epoch, rev: m.rev + 1 }) };
  }

  /** This tab deleted revision `rev` of a message (its tombstone). */
  deleted(chatId: string, msgId: string, rev: number): void {
    this.cache.set(`${chatId}/${msgId}/${rev}`, { ct: null, shown: DELETED });
    void this.revisions.saw(chatId, msgId, rev);
  }
}

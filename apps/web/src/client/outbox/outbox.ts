/**
 * The outbox as the ChatClient sees it (the queue; its entries at rest: outbox-store.ts):
 * messages are stored in IndexedDB before they are sent, shown at once with a pending
 * clock, sent one at a time per recipient (so they keep their order) whenever the socket
 * is online, and forgotten when the server acknowledges them. A resend with the same id is
 * acknowledged again and stored once. The rest of the message's way: docs/message-path.md.
 *
 * Failures (after Signal Desktop's JobQueue: stored jobs parsed before they run,
 * bounded attempts, backoff; the rules: retry-policy.ts):
 * - offline: the message waits for the next connection, which sends it again (no
 *   attempt is counted);
 * - transient ('timeout', 'rate_limited', 'internal', anything unknown): tried again
 *   after up to 1 s, 2 s, 4 s… (at most 30 s; each wait jittered between half and all of
 *   it), up to MAX_ATTEMPTS attempts; a new
 *   connection tries at once;
 * - permanent (every other server refusal), or transient after the last attempt: the
 *   message fails. It stays in the conversation, marked "Not sent" with the reason
 *   (kept in its stored entry, so a reload shows it again), is not sent again unless
 *   the user retries it, and no longer holds back later messages to that person.
 *
 * A message with a file uploads it first (its entry keeps the sealed bytes and, once made,
 * the upload's URL: a reload resumes it), showing how far it got; then it is sent naming
 * the upload, its key sealed inside (docs/attachments.md). Upload failures are sorted like
 * send failures.
 */

import type { MessageContent } from '@app/e2ee';
import { withJitter } from '@/lib/backoff';
import { logged } from '@/lib/log';
import { UploadError } from '../attachments/upload';
import type { UiMessage } from '../conversations/conversation';
import type { LocalSealing } from '../keys/local-keys';
import { type ChatSocket, RequestError } from '../socket/chat-socket';
import { type HandOver, handedOver } from './hand-over';
import { readEntry, sealedEntry } from './outbox-content';
import type { OutboxHooks } from './outbox-hooks';

import { newMessageId, type Pending, shownMessage } from './outbox-pending';
import { indexedDbOutbox, type OutboxEntry, type OutboxStore, parseOutboxEntries } from './outbox-store';
import { KEY_RETRIES, MAX_ATTEMPTS, retryDelay, sendFailureKind } from './retry-policy';

const IN_MEMORY: LocalSealing = { seal: async () => null, open: async () => null };

export class Outbox {
  /** The createdAt of the newest message queued here (they strictly increase). */
  private lastCreatedAt = 0;
  private readonly userId: string;
  private readonly socket: ChatSocket;
  private readonly hooks: OutboxHooks;
  private readonly store: OutboxStore;
  private readonly pending = new Map<string, Pending>();
  private stopped = false;

  /** Where each retry falls between half its ceiling and the ceiling (tests pin it). */
  private readonly random: () => number;
  private readonly local: LocalSealing;

  constructor(
    userId: string,
    socket: ChatSocket,
    hooks: OutboxHooks,
    store: OutboxStore = indexedDbOutbox,
    random: () => number = Math.random,
    local: LocalSealing = IN_MEMORY,
  ) {
    this.userId = userId;
    this.socket = socket;
    this.hooks = hooks;
    this.store = store;
    this.random = random;
    this.local = local;
  }

  private toMessage(entry: OutboxEntry, content: MessageContent): UiMessage {
    return shownMessage(this.userId, entry, content, this.pending.get(entry.msgId)?.progress ?? 0);
  }

  private track(entry: OutboxEntry, content: MessageContent, stored: boolean): Pending {
    let markSafe!: () => void;
    const safe = new Promise<void>((resolve) => {
      markSafe = resolve;
    });
    const p: Pending = {
      entry,
      content,
      keyRetries: 0,
      stored,
      inflight: false,
      attempts: 0,
      progress: 0,
      abort: new AbortController(),
      timer: null,
      message: this.toMessage(entry, content),
      safe,
      markSafe,
      handedOver: null,
    };
    this.pending.set(entry.msgId, p);
    return p;
  }

  /** Replaces the entry of `p` (and what is shown of it). */
  private update(p: Pending, entry: OutboxEntry): void {
    p.entry = entry;
    p.message = this.toMessage(entry, p.content);
  }

  /** Picks up what an earlier page of this user left unsent (and what failed). */
  async load(): Promise<void> {
    let entries: OutboxEntry[];
    try {
      // Parsed before use: a malformed record is never sent.
      entries = parseOutboxEntries(await this.store.list(this.userId), this.userId);
    } catch {
      return;
    }
    if (this.stopped) return;
    const peers = new Set<string>();
    for (const e of entries) {
      if (this.pending.has(e.msgId)) continue;
      const read = await readEntry(this.local, this.store, e).catch(() => null);
      if (this.stopped) return;
      // Sealed under another browser key (wiped at a sign-out since): it cannot be read, nor sent.
      if (read === null) {
        this.store.remove(e.msgId).catch(logged('outbox', 'remove an unreadable entry'));
        continue;
      }
      if (!this.pending.has(e.msgId)) this.track(read.entry, read.content, true);
      peers.add(e.to);
    }
    for (const peerId of peers) {
      this.hooks.changed(peerId);
      this.sendNext(peerId);
    }
  }

  /**
   * Queues a new message to `peerId`. Each gets a later createdAt than the one before (by a
   * millisecond when the clock has not moved): the order they go in, also after a reload.
   * Resolves once the message outlives a reload: stored here (by this write or a later
   * one), or once the outbox is done with it (the server has it, or the user deleted it).
   */
  add(peerId: string, message: string | MessageContent, handOver?: HandOver, file?: Blob): Promise<void> {
    this.lastCreatedAt = Math.max(Date.now(), this.lastCreatedAt + 1);
    const p = this.track(
      {
        msgId: newMessageId(),
        to: peerId,
        createdAt: this.lastCreatedAt,
        userId: this.userId,
        ...(file ? { upload: { blob: file } } : {}),
      },
      typeof message === 'string' ? { text: message } : message,
      false,
    );
    p.handedOver = handOver?.(p.entry.msgId, p.safe) ?? null;
    this.hooks.changed(peerId);
    this.storeThenSend(p);
    return p.safe;
  }

  /**
   * Writes the entry, then lets it go out once handed over (without storage it still goes;
   * it just would not survive a reload).
   */
  private storeThenSend(p: Pending): void {
    p.stored = false;
    sealedEntry(this.local, p.entry, p.content)
      .then((entry) => {
        p.entry = entry;
        return this.store.put(p.entry);
      })
      .then(p.markSafe, () => {})
      .then(() => this.handedOverOf(p))
      .finally(() => {
        p.stored = true;
        this.sendNext(p.entry.to);
      });
  }

  /** Waits for `p`'s hand-over (hand-over.ts). */
  private async handedOverOf(p: Pending): Promise<void> {
    if (p.handedOver) await handedOver(p.handedOver);
    p.handedOver = null;
  }

  /** The waiting and failed messages to `peerId`, oldest first. */
  messagesTo(peerId: string): UiMessage[] {
    const out: UiMessage[] = [];
    for (const p of this.pending.values()) if (p.entry.to === peerId) out.push(p.message);
    return out.sort((a, b) => a.timestamp - b.timestamp);
  }

  /** Sends what waits (called when the connection is back: a message in backoff is tried at once). */
  flush(): void {
    const peers = new Set<string>();
    for (const p of this.pending.values()) {
      if (p.timer) {
        clearTimeout(p.timer);
        p.timer = null;
      }
      peers.add(p.entry.to);
    }
    for (const peerId of peers) this.sendNext(peerId);
  }

  /** Queues a failed message again, with its attempts reset. Returns whether it was a failed message of this outbox. */
  retry(msgId: string): boolean {
    const p = this.pending.get(msgId);
    if (!p?.entry.failed || this.stopped) return false;
    const { failed: _, ...entry } = p.entry;
    this.update(p, entry);
    p.attempts = 0;
    this.hooks.changed(entry.to);
    this.storeThenSend(p);
    return true;
  }

  /** Forgets a failed message (from storage and the conversation), and drops its upload. Returns whether it was one. */
  discard(msgId: string): boolean {
    const p = this.pending.get(msgId);
    if (!p?.entry.failed) return false;
    this.forget(p);
    if (p.entry.upload?.url) this.hooks.dropUpload(p.entry.upload.url);
    this.hooks.changed(p.entry.to);
    return true;
  }

  /**
   * Cancels a message whose file has not finished uploading: its upload stops and is
   * dropped, and the message is forgotten. Returns whether it was one.
   */
  cancel(msgId: string): boolean {
    const p = this.pending.get(msgId);
    const upload = p?.entry.upload;
    if (!p || !upload || upload.id) return false;
    p.abort.abort();
    this.forget(p);
    const url = p.entry.upload?.url;
    if (url) this.hooks.dropUpload(url);
    this.hooks.changed(p.entry.to);
    return true;
  }

  /**
   * The server has this message (it came in the update log or a history page): an
   * entry still held for it (one whose acknowledgement was lost) is done with.
   */
  settled(msgId: string): void {
    const p = this.pending.get(msgId);
    if (!p || p.inflight) return;
    this.forget(p);
    this.hooks.changed(p.entry.to);
  }

  stop(): void {
    this.stopped = true;
    for (const p of this.pending.values()) {
      if (p.timer) clearTimeout(p.timer);
      p.timer = null;
    }
  }

  private forget(p: Pending): void {
    if (p.timer) clearTimeout(p.timer);
    p.timer = null;
    this.pending.delete(p.entry.msgId);
    this.store.remove(p.entry.msgId).catch(logged('outbox', 'remove a sent entry'));
    p.markSafe();
  }

  /** Marks `p` failed: kept and shown as "Not sent", no longer sent nor holding back the next. */
  private fail(p: Pending, code: string, reason: string): void {
    this.update(p, { ...p.entry, failed: { code, reason, at: Date.now() } });
    p.attempts = 0;
    this.store.put(p.entry).then(p.markSafe, logged('outbox', 'store a failed entry'));
    this.hooks.changed(p.entry.to);
    this.hooks.failed(reason);
  }

  /** Uploads `p`'s file, or resumes it; its id, kept in the entry. */
  private async uploadOf(p: Pending, upload: NonNullable<OutboxEntry['upload']>): Promise<string> {
    if (upload.id) return upload.id;
    const keep = (change: Partial<typeof upload>) => {
      // Cancelled meanwhile: nothing goes back to storage.
      if (this.pending.get(p.entry.msgId) !== p) return;
      const current = p.entry.upload ?? upload;
      this.update(p, { ...p.entry, upload: { ...current, ...change } });
      this.store.put(p.entry).catch(logged('outbox', 'store an upload'));
    };
    const id = await this.hooks.upload(upload.blob, {
      ...(upload.url ? { url: upload.url } : {}),
      signal: p.abort.signal,
      onUrl: (url) => keep({ url }),
      onProgress: (sent, total) => {
        p.progress = total > 0 ? sent / total : 0;
        this.update(p, p.entry);
        this.hooks.changed(p.entry.to);
      },
    });
    keep({ id });
    return id;
  }

  /** Seals `p` for the server (the same id every time: a resend is stored once) and sends it. */
  private async sealAndSend(p: Pending) {
    const { to, msgId, upload } = p.entry;
    let content = p.content;
    let attachments: string[] | undefined;
    if (upload) {
      const id = await this.uploadOf(p, upload);
      if (p.abort.signal.aborted) throw new UploadError('offline', 'The upload was cancelled.');
      content = { ...content, attachments: content.attachments?.map((a) => ({ ...a, id })) };
      attachments = [id];
    }
    const sealed = await this.hooks.seal(to, msgId, content);
    const r = await this.socket.request('send', {
      to,
      msgId,
      ct: sealed.ct,
      ...(sealed.chatKey ? { chatKey: sealed.chatKey } : {}),
      ...(attachments ? { attachments } : {}),
    });
    sealed.accepted();
    p.keyRetries = 0;
    return r;
  }

  /** Sends the oldest message to `peerId` that has not failed, unless one is on its way or waiting to be tried again. */
  private sendNext(peerId: string): void {
    if (this.stopped || this.socket.status !== 'online') return;
    let first: Pending | undefined;
    for (const p of this.pending.values()) {
      if (p.entry.to !== peerId || p.entry.failed) continue;
      if (p.inflight) return;
      if (!first || p.entry.createdAt < first.entry.createdAt) first = p;
    }
    if (!first?.stored || first.timer) return;
    const p = first;
    p.inflight = true;
    const { to, msgId } = p.entry;
    this.sealAndSend(p).then(
      (r) => {
        p.inflight = false;
        if (this.stopped || this.pending.get(msgId) !== p) return;
        this.forget(p);
        if ('message' in r) this.hooks.acknowledged(r.message);
        else this.hooks.requested(peerId, r.request);
        this.hooks.changed(peerId);
        this.sendNext(peerId);
      },
      (e: unknown) => {
        p.inflight = false;
        if (this.stopped || this.pending.get(msgId) !== p) return;
        // An upload cut off is tried again after a backoff (the socket may well be online).
        let code =
          e instanceof RequestError || (e instanceof UploadError && e.code !== 'offline') ? e.code : 'internal';
        // The server no longer has the upload the message names (collected, or lost): uploaded again.
        if (code === 'not_found' && p.entry.upload?.id) {
          this.update(p, { ...p.entry, upload: { blob: p.entry.upload.blob } });
          this.store.put(p.entry).catch(logged('outbox', 'store an upload to redo'));
          code = 'internal';
        }
        const kind = sendFailureKind(code);
        // Lost with the connection: sent again on reconnect.
        if (kind === 'offline') return;
        // The chat's key moved on: seal again under the current one, at once.
        if ((code === 'rekey_required' || code === 'conflict') && p.keyRetries < KEY_RETRIES) {
          p.keyRetries += 1;
          this.hooks.keysMoved(to);
          this.sendNext(peerId);
          return;
        }
        if (kind === 'transient') {
          p.attempts += 1;
          // After the backoff, key refusals may be mended again.
          p.keyRetries = 0;
          if (p.attempts < MAX_ATTEMPTS) {
            p.timer = setTimeout(
              () => {
                p.timer = null;
                this.sendNext(peerId);
              },
              withJitter(retryDelay(p.attempts), this.random),
            );
            return;
          }
        }
        this.fail(p, code, e instanceof Error && e.message ? e.message : 'The message could not be sent.');
        this.sendNext(peerId);
      },
    );
  }
}

/**
 * The outbox as the ChatClient sees it: messages are stored in IndexedDB before they
 * are sent, shown at once with a pending clock, sent one at a time per recipient (so
 * they keep their order) whenever the socket is online, and forgotten when the server
 * acknowledges them. A resend with the same id is acknowledged again and stored once.
 */
import { type Access, type ChatMessage, chatIdOf } from '@app/protocol';
import { type ChatSocket, RequestError } from './chat-socket';
import type { UiMessage } from './conversation';
import { listOutbox, type OutboxEntry, putOutbox, removeOutbox } from './outbox';

interface Pending {
  entry: OutboxEntry;
  message: UiMessage;
  /** Written to IndexedDB (or IndexedDB failed): may be sent. */
  stored: boolean;
  inflight: boolean;
}

export interface OutboxHooks {
  /** The waiting messages to this peer changed. */
  changed(peerId: string): void;
  acknowledged(message: ChatMessage): void;
  /** The peer takes messages from contacts only: this one went to them as a contact request. */
  requested(peerId: string, access: Access): void;
  /** The server refused a message for good. */
  failed(text: string): void;
}

const RETRY_MS = 2000;

/** A message id: a UUID (crypto.randomUUID needs a secure context, so fall back to random bytes). */
export function newMessageId(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export class Outbox {
  private readonly userId: string;
  private readonly socket: ChatSocket;
  private readonly hooks: OutboxHooks;
  private readonly pending = new Map<string, Pending>();
  private stopped = false;

  constructor(userId: string, socket: ChatSocket, hooks: OutboxHooks) {
    this.userId = userId;
    this.socket = socket;
    this.hooks = hooks;
  }

  private track(entry: OutboxEntry, stored: boolean): Pending {
    const p: Pending = {
      entry,
      stored,
      inflight: false,
      message: {
        chatId: chatIdOf(this.userId, entry.to),
        id: entry.msgId,
        senderId: this.userId,
        recipientId: entry.to,
        text: entry.text,
        timestamp: entry.createdAt,
        status: 'sent',
        edited: false,
        deleted: false,
        deliveredAt: null,
        readAt: null,
        pending: true,
      },
    };
    this.pending.set(entry.msgId, p);
    return p;
  }

  /** Picks up what an earlier page of this user left unsent. */
  async load(): Promise<void> {
    let entries: OutboxEntry[];
    try {
      entries = await listOutbox(this.userId);
    } catch {
      return;
    }
    if (this.stopped) return;
    const peers = new Set<string>();
    for (const e of entries) {
      if (this.pending.has(e.msgId)) continue;
      this.track(e, true);
      peers.add(e.to);
    }
    for (const peerId of peers) {
      this.hooks.changed(peerId);
      this.sendNext(peerId);
    }
  }

  /** Queues a new message to `peerId`. */
  add(peerId: string, text: string): void {
    const p = this.track(
      { msgId: newMessageId(), to: peerId, text, createdAt: Date.now(), userId: this.userId },
      false,
    );
    this.hooks.changed(peerId);
    putOutbox(p.entry)
      .catch(() => {
        // Without storage the message still goes out; it just would not survive a reload.
      })
      .finally(() => {
        p.stored = true;
        this.sendNext(peerId);
      });
  }

  /** The waiting messages to `peerId`, oldest first. */
  messagesTo(peerId: string): UiMessage[] {
    const out: UiMessage[] = [];
    for (const p of this.pending.values()) if (p.entry.to === peerId) out.push(p.message);
    return out.sort((a, b) => a.timestamp - b.timestamp);
  }

  /** Sends what waits (called when the connection is back). */
  flush(): void {
    const peers = new Set([...this.pending.values()].map((p) => p.entry.to));
    for (const peerId of peers) this.sendNext(peerId);
  }

  stop(): void {
    this.stopped = true;
  }

  private forget(p: Pending): void {
    this.pending.delete(p.entry.msgId);
    removeOutbox(p.entry.msgId).catch(() => {});
  }

  private sendNext(peerId: string): void {
    if (this.stopped || this.socket.status !== 'online') return;
    let first: Pending | undefined;
    for (const p of this.pending.values()) {
      if (p.entry.to !== peerId) continue;
      if (p.inflight) return;
      if (!first || p.entry.createdAt < first.entry.createdAt) first = p;
    }
    if (!first?.stored) return;
    const p = first;
    p.inflight = true;
    const { to, msgId, text } = p.entry;
    this.socket.request('send', { to, msgId, text }).then(
      (r) => {
        p.inflight = false;
        if (this.stopped) return;
        this.forget(p);
        if ('message' in r) this.hooks.acknowledged(r.message);
        else this.hooks.requested(peerId, r.request);
        this.hooks.changed(peerId);
        this.sendNext(peerId);
      },
      (e: unknown) => {
        p.inflight = false;
        if (this.stopped) return;
        const code = e instanceof RequestError ? e.code : 'internal';
        // Lost with the connection: sent again on reconnect.
        if (code === 'offline') return;
        if (code === 'timeout' || code === 'rate_limited' || code === 'internal') {
          setTimeout(() => this.sendNext(peerId), RETRY_MS);
          return;
        }
        this.forget(p);
        this.hooks.changed(peerId);
        this.hooks.failed(e instanceof Error ? e.message : 'The message could not be sent.');
        this.sendNext(peerId);
      },
    );
  }
}

/**
 * Delivery and read receipts: `delivered` batched per chat, `read` debounced per peer,
 * both retried after a reconnect.
 */
import type { ChatSocket } from './socket/chat-socket';

/** How long delivery receipts gather before one frame per chat goes out. */
const DELIVERED_BATCH_MS = 50;
/** Largest `msgIds` the server takes in one frame. */
const DELIVERED_MAX = 500;
/** Read receipts wait this long, so a burst of messages costs one `read`. */
export const READ_DEBOUNCE_MS = 150;

export class Receipts {
  private readonly socket: ChatSocket;
  /** chatId → message ids waiting to be acknowledged. */
  private readonly queue = new Map<string, Set<string>>();
  private readonly inflight = new Set<string>();
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly readTimers = new Map<string, ReturnType<typeof setTimeout>>();
  /** Peers with a `read` in flight; true when another was asked for meanwhile. */
  private readonly reading = new Map<string, boolean>();
  private stopped = false;

  constructor(socket: ChatSocket) {
    this.socket = socket;
  }

  /** This message from a peer reached us. */
  delivered(chatId: string, msgId: string): void {
    if (this.inflight.has(`${chatId}/${msgId}`)) return;
    let ids = this.queue.get(chatId);
    if (!ids) {
      ids = new Set();
      this.queue.set(chatId, ids);
    }
    ids.add(msgId);
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = null;
      this.flush();
    }, DELIVERED_BATCH_MS);
  }

  /** Sends what is waiting (also called when the connection is back). */
  flush(): void {
    if (this.stopped || this.socket.status !== 'online') return;
    for (const [chatId, set] of this.queue) {
      this.queue.delete(chatId);
      const ids = [...set];
      for (let i = 0; i < ids.length; i += DELIVERED_MAX) this.sendDelivered(chatId, ids.slice(i, i + DELIVERED_MAX));
    }
  }

  private sendDelivered(chatId: string, msgIds: string[]): void {
    for (const id of msgIds) this.inflight.add(`${chatId}/${id}`);
    const settle = () => {
      for (const id of msgIds) this.inflight.delete(`${chatId}/${id}`);
    };
    this.socket.request('delivered', { chatId, msgIds }).then(settle, (e: { code?: string }) => {
      settle();
      // Lost with the connection or unanswered: try again (the server ignores repeats).
      if (e.code === 'offline' || e.code === 'timeout') for (const id of msgIds) this.delivered(chatId, id);
    });
  }

  /** The chat with `peerId` is open and visible: mark everything from them read. */
  read(peerId: string): void {
    if (this.stopped || this.readTimers.has(peerId)) return;
    this.readTimers.set(
      peerId,
      setTimeout(() => {
        this.readTimers.delete(peerId);
        this.sendRead(peerId);
      }, READ_DEBOUNCE_MS),
    );
  }

  private sendRead(peerId: string): void {
    if (this.stopped || this.socket.status !== 'online') return;
    if (this.reading.has(peerId)) {
      this.reading.set(peerId, true);
      return;
    }
    this.reading.set(peerId, false);
    const settle = () => {
      const again = this.reading.get(peerId);
      this.reading.delete(peerId);
      if (again) this.read(peerId);
    };
    this.socket.request('read', { peerId }).then(settle, settle);
  }

  stop(): void {
    this.stopped = true;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    for (const t of this.readTimers.values()) clearTimeout(t);
    this.readTimers.clear();
    this.queue.clear();
  }
}

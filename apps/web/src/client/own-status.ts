/**
 * The delivery state of the user's own messages, for the ticks of the chat list: a
 * summary's newest message carries no status, so it is read from what the client sees
 * (messages of the update log and of history pages), and looked up for the newest chats
 * whose last message was sent before this page loaded (one `history` message each, a few
 * at a time, at most LOOKUPS_MAX: older rows show their ticks once something is known).
 */
import type { ChatMessage, MessageStatus } from '@app/protocol';
import type { ChatSocket } from './socket/chat-socket';

const RANK: Record<MessageStatus, number> = { sent: 0, delivered: 1, read: 2 };
/** Most messages looked up per connection. */
export const LOOKUPS_MAX = 20;
const IN_FLIGHT_MAX = 2;

export class OwnStatuses {
  private readonly known = new Map<string, MessageStatus>();
  private readonly asked = new Set<string>();
  private readonly queue: { peerId: string; msgId: string }[] = [];
  private inFlight = 0;
  private readonly socket: Pick<ChatSocket, 'request' | 'status'>;
  private readonly userId: string;
  private readonly changed: () => void;

  constructor(userId: string, socket: Pick<ChatSocket, 'request' | 'status'>, changed: () => void) {
    this.userId = userId;
    this.socket = socket;
    this.changed = changed;
  }

  /** A message as the server has it now: the state of an own one is kept (it only moves forward). */
  note(m: ChatMessage): boolean {
    if (m.senderId !== this.userId) return false;
    const was = this.known.get(m.id);
    if (was !== undefined && RANK[was] >= RANK[m.status]) return false;
    this.known.set(m.id, m.status);
    return true;
  }

  get(msgId: string): MessageStatus | undefined {
    return this.known.get(msgId);
  }

  /** A row shows the own message `msgId` without a known state: ask the server (once). */
  lookup(peerId: string, msgId: string): void {
    if (this.known.has(msgId) || this.asked.has(msgId) || this.asked.size >= LOOKUPS_MAX) return;
    if (this.socket.status !== 'online') return;
    this.asked.add(msgId);
    this.queue.push({ peerId, msgId });
    this.next();
  }

  /** A fresh start (the update log did not resume): what was known may be stale. */
  reset(): void {
    this.known.clear();
    this.asked.clear();
    this.queue.length = 0;
  }

  private next(): void {
    if (this.inFlight >= IN_FLIGHT_MAX) return;
    const job = this.queue.shift();
    if (!job) return;
    this.inFlight += 1;
    this.socket
      .request('history', { peerId: job.peerId, limit: 1 })
      .then(
        (r) => {
          if (r.messages.some((m) => this.note(m))) this.changed();
        },
        () => {},
      )
      .finally(() => {
        this.inFlight -= 1;
        this.next();
      });
  }
}

/**
 * Typing indicators both ways: who is typing to us (pushed by the server, not logged),
 * and our own flag per peer, sent only when it changes and cleared after
 * TYPING_CLEAR_MS without input (and after sending).
 */
import { TYPING_CLEAR_MS } from '@app/protocol';
import type { ChatSocket } from './socket/chat-socket';

export class Typing {
  private readonly socket: ChatSocket;
  private readonly changed: () => void;
  /** Peers typing to us. */
  private readonly incoming = new Map<string, boolean>();
  /** Peers we told we are typing, with the timer that clears it. */
  private readonly outgoing = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(socket: ChatSocket, changed: () => void) {
    this.socket = socket;
    this.changed = changed;
  }

  isTyping(peerId: string): boolean {
    return this.incoming.get(peerId) === true;
  }

  received(from: string, typing: boolean): void {
    if (this.isTyping(from) === typing) return;
    this.incoming.set(from, typing);
    this.changed();
  }

  /** The connection dropped: a "stopped typing" may have been missed. */
  connectionLost(): void {
    if (this.incoming.size === 0) return;
    this.incoming.clear();
    this.changed();
  }

  /** The user typed in the chat with `peerId`. */
  note(peerId: string): void {
    const timer = this.outgoing.get(peerId);
    if (timer) clearTimeout(timer);
    else if (!this.socket.send({ t: 'typing', to: peerId, typing: true })) return;
    this.outgoing.set(
      peerId,
      setTimeout(() => this.stop(peerId), TYPING_CLEAR_MS),
    );
  }

  stop(peerId: string): void {
    const timer = this.outgoing.get(peerId);
    if (!timer) return;
    clearTimeout(timer);
    this.outgoing.delete(peerId);
    this.socket.send({ t: 'typing', to: peerId, typing: false });
  }

  destroy(): void {
    for (const t of this.outgoing.values()) clearTimeout(t);
    this.outgoing.clear();
  }
}

/**
 * The server's sockets (the WebSocketServer's `WebSocket` class) and the write batching
 * they share. Once a socket has an owner (its Connection), the events it handles go
 * straight to it: no listener closures, and no entries in the socket's listener table
 * (together about 350 bytes a socket).
 */
import { type RawData, WebSocket } from 'ws';
import { wsSocket } from '../library-internals.ts';

/** What owns a socket: the Connection. */
export interface SocketOwner {
  receive(data: RawData, isBinary: boolean): void;
  /** The socket answered the last ping. */
  alive: boolean;
  onClose(): Promise<void>;
}

export class ConnSocket extends WebSocket {
  conn: SocketOwner | null = null;
  /** Token bucket of the frames this socket may send (see takeToken). */
  private tokens = -1;
  private tokensAt = 0;
  /** Frames refused for going over it. */
  refused = 0;

  /**
   * Takes a token for one frame: `perSecond` frames a second on average, bursts up to
   * `burst`. False (and counted in `refused`) when the socket is over its rate.
   */
  takeToken(rate: { perSecond: number; burst: number }): boolean {
    const now = Date.now();
    if (this.tokens < 0) this.tokens = rate.burst;
    else this.tokens = Math.min(rate.burst, this.tokens + ((now - this.tokensAt) / 1000) * rate.perSecond);
    this.tokensAt = now;
    if (this.tokens < 1) {
      this.refused += 1;
      return false;
    }
    this.tokens -= 1;
    return true;
  }

  override emit(event: string | symbol, ...args: unknown[]): boolean {
    const conn = this.conn;
    if (conn !== null) {
      switch (event) {
        case 'message':
          conn.receive(args[0] as RawData, args[1] as boolean);
          return true;
        case 'pong':
          conn.alive = true;
          return true;
        case 'close':
          void conn.onClose();
          return true;
        case 'error':
          return true; // ws closes the socket itself
      }
    }
    return super.emit(event, ...args);
  }
}

/**
 * Frames written in one turn of the event loop leave in one write per socket: the first
 * frame corks the socket and the rest of the turn's frames (a message's result, its
 * update and its summary, or many messages at once) join it until the uncork.
 */
const corked: WebSocket[] = [];

export function cork(ws: WebSocket): void {
  const socket = wsSocket(ws);
  if (socket.writableCorked > 0) return;
  socket.cork();
  corked.push(ws);
  if (corked.length === 1) process.nextTick(uncorkAll);
}

function uncorkAll(): void {
  for (const ws of corked.splice(0)) wsSocket(ws).uncork();
}

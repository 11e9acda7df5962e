/**
 * The environment of a real ChatClient running in Node against a real test server: its
 * WebSocket is the `ws` package's (with the session cookie and the server's Origin, as a
 * browser would send them), and the test decides when the device goes offline or online
 * and can cut the connection as a network failure would.
 */

import WebSocket from 'ws';
import type { EnvEvents, SocketEnv, WebSocketLike } from '@/lib/socket-env';

export class NodeEnv implements SocketEnv {
  private readonly url: string;
  private readonly cookie: string;
  private isOnline = true;
  private events: EnvEvents | null = null;
  /** Every socket opened, the current one last. */
  readonly sockets: WebSocket[] = [];

  constructor(serverUrl: string, cookie: string) {
    this.url = serverUrl;
    this.cookie = cookie;
  }

  open(): WebSocketLike {
    const ws = new WebSocket(`${this.url.replace(/^http/, 'ws')}/ws`, {
      headers: { origin: this.url, cookie: `sid=${this.cookie}` },
    });
    ws.on('error', () => {}); // a refused or cut socket closes; the client sees onclose
    this.sockets.push(ws);
    return ws as unknown as WebSocketLike;
  }

  online(): boolean {
    return this.isOnline;
  }

  visible(): boolean {
    return true;
  }

  listen(events: EnvEvents): () => void {
    this.events = events;
    return () => {
      this.events = null;
    };
  }

  /** The device loses its network: the client drops its socket at once. */
  goOffline(): void {
    this.isOnline = false;
    this.events?.offline();
  }

  goOnline(): void {
    this.isOnline = true;
    this.events?.online();
  }

  /** The connection dies without a close handshake (a cut cable, a killed proxy). */
  cut(): void {
    this.sockets.at(-1)?.terminate();
  }
}

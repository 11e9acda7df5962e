/**
 * The environment of a real ChatClient running in Node against a real test server: its
 * WebSocket is the `ws` package's (with the session cookie and the server's Origin, as a
 * browser would send them), and the test decides when the device goes offline or online
 * and can cut the connection as a network failure would, or lose the answer to a request
 * on the way back (the server acted; the client never hears of it).
 */

import WebSocket from 'ws';
import type { EnvEvents, SocketEnv, WebSocketLike } from '@/client/socket/socket-env';

export class NodeEnv implements SocketEnv {
  private readonly url: string;
  private readonly cookie: string;
  private isOnline = true;
  private events: EnvEvents | null = null;
  /** Every socket opened, the current one last. */
  readonly sockets: WebSocket[] = [];
  /** Frames the client sent on its sockets, parsed. */
  readonly sent: { t: string; id?: string; [k: string]: unknown }[] = [];
  /** Requests of these types lose their answer (once each) and their connection with it. */
  private readonly loseAnswers: string[] = [];
  private readonly losing = new Set<string>();

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
    return this.tap(ws);
  }

  /** The socket as the client sees it: what it sends recorded, answers to lose dropped. */
  private tap(ws: WebSocket): WebSocketLike {
    const tapped: WebSocketLike = {
      get readyState() {
        return ws.readyState;
      },
      onopen: null,
      onmessage: null,
      onclose: null,
      send: (data: string) => {
        const frame = JSON.parse(data) as NodeEnv['sent'][number];
        this.sent.push(frame);
        const i = this.loseAnswers.indexOf(frame.t);
        if (i >= 0 && frame.id !== undefined) {
          this.loseAnswers.splice(i, 1);
          this.losing.add(frame.id);
        }
        ws.send(data);
      },
      close: (code?: number) => ws.close(code),
    };
    ws.onopen = (ev) => tapped.onopen?.(ev);
    ws.onclose = (ev) => tapped.onclose?.(ev);
    ws.onmessage = (ev) => {
      const data = typeof ev.data === 'string' ? ev.data : String(ev.data);
      const id = (JSON.parse(data) as { id?: string }).id;
      if (id !== undefined && this.losing.delete(id)) {
        // The server did it; the answer is lost with the connection.
        ws.terminate();
        return;
      }
      tapped.onmessage?.({ data });
    };
    return tapped;
  }

  /** The next request of type `t` is done by the server, but its answer is lost with the connection. */
  loseAnswerTo(t: string): void {
    this.loseAnswers.push(t);
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

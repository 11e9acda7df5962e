/**
 * What a ChatSocket needs from where it runs: a way to open the WebSocket, and the
 * environment's online and visibility state and events. The browser's by default; tests
 * run the real client in Node with the `ws` package and an environment they control
 * (src/test/node-env.ts).
 */

/** The part of the browser's WebSocket the client uses (the `ws` package has it too). */
export interface WebSocketLike {
  readonly readyState: number;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number }) => void) | null;
  send(data: string): void;
  close(code?: number): void;
}

/** WebSocket.OPEN (the global may not exist where the client runs). */
export const WS_OPEN = 1;

export interface EnvEvents {
  online(): void;
  offline(): void;
  /** The page became visible. */
  visible(): void;
}

export interface SocketEnv {
  /** Opens a socket to the server's /ws (may throw). */
  open(): WebSocketLike;
  /** False when the device knows it has no network. */
  online(): boolean;
  visible(): boolean;
  /** Listens to the environment's online, offline and visibility events; returns the unsubscribe. */
  listen(events: EnvEvents): () => void;
}

/** The browser: the page's own origin, navigator.onLine, document visibility. */
export const browserEnv: SocketEnv = {
  open() {
    return new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`) as WebSocketLike;
  },
  online: () => typeof navigator === 'undefined' || navigator.onLine !== false,
  visible: () => document.visibilityState === 'visible',
  listen(events) {
    const visible = () => {
      if (document.visibilityState === 'visible') events.visible();
    };
    window.addEventListener('online', events.online);
    window.addEventListener('offline', events.offline);
    document.addEventListener('visibilitychange', visible);
    return () => {
      window.removeEventListener('online', events.online);
      window.removeEventListener('offline', events.offline);
      document.removeEventListener('visibilitychange', visible);
    };
  },
};

/**
 * The transport under the ChatClient: one WebSocket to /ws, the hello handshake,
 * reconnection with exponential backoff and jitter, a keep-alive ping, and
 * request/response matching by client-chosen ids. It keeps no chat state.
 */
import {
  CLOSE,
  type DownFrame,
  downFrameSchema,
  type GlobalEvent,
  PROTOCOL_VERSION,
  type Presence,
  type Privacy,
  type RequestFrame,
  type RequestKind,
  type ResultData,
  resultSchemas,
  type Update,
  type UpFrame,
  type WsErrorCode,
} from '@app/protocol';
import { withJitter } from '@/lib/backoff';
import { browserEnv, type SocketEnv, type WebSocketLike, WS_OPEN } from './socket-env';

export type ConnectionStatus = 'connecting' | 'online' | 'offline';

export type { RequestKind };
export type RequestBody<K extends RequestKind> = Omit<Extract<RequestFrame, { t: K }>, 'id' | 't'>;

/** A request that failed: the server's typed error, or 'offline' / 'timeout' on our side. */
export class RequestError extends Error {
  readonly code: WsErrorCode | 'offline' | 'timeout';
  constructor(code: RequestError['code'], message: string) {
    super(message);
    this.code = code;
  }
}

export interface SocketHandlers {
  status(status: ConnectionStatus): void;
  welcome(w: { userId: string; seq: number; resumed: boolean; privacy: Privacy }): void;
  update(seq: number, update: Update): void;
  presence(p: Presence): void;
  typing(from: string, typing: boolean): void;
  /** A change every signed-in user hears about (broadcasts, settings, badges). */
  global(event: GlobalEvent): void;
  /** An error frame that answers no request (rate limiting, an invalid frame). */
  serverError(code: WsErrorCode, message: string): void;
  /** The socket was closed because the account is blocked. */
  blocked(): void;
  /** The session ended, or the upgrade was refused: ask the server who we are. */
  checkSession(): void;
  /** The server speaks another protocol version: this page is outdated. */
  outdated(): void;
}

export const REQUEST_TIMEOUT_MS = 15_000;
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 15_000;
const PING_EVERY_MS = 25_000;
const PONG_WITHIN_MS = 10_000;
/** An attempt that has not been welcomed by then is given up (a hung connect or handshake). */
const WELCOME_WITHIN_MS = 15_000;
/** After this many failed attempts in a row, 'connecting' becomes 'offline'. */
const FAILURES_BEFORE_OFFLINE = 2;

interface Pending {
  resolve(data: unknown): void;
  reject(err: RequestError): void;
  timer: ReturnType<typeof setTimeout>;
}

/** The delay before reconnection attempt `n` (0-based): 0.5 s doubling to 15 s, with jitter. */
export function backoffDelay(n: number, random: () => number = Math.random): number {
  return withJitter(Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** n), random);
}

/** A light structural check of a server frame: the fields the client relies on. */
/** Every server frame is parsed with the protocol's schema; anything else is ignored. */
function parseDownFrame(text: string): DownFrame | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  const r = downFrameSchema.safeParse(raw);
  return r.success ? r.data : null;
}

export class ChatSocket {
  status: ConnectionStatus = 'connecting';
  private ws: WebSocketLike | null = null;
  private welcomed = false;
  private failures = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private pingTimer: ReturnType<typeof setInterval> | null = null;
  /** Fires unless a frame arrives first: the welcome after connecting, the pong after a ping. */
  private silenceTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly pending = new Map<string, Pending>();
  private nextId = 1;
  private stopped = true;
  private readonly handlers: SocketHandlers;
  private readonly lastSeq: () => number | null;
  private readonly env: SocketEnv;
  private unlisten: (() => void) | null = null;

  constructor(handlers: SocketHandlers, lastSeq: () => number | null, env: SocketEnv = browserEnv) {
    this.handlers = handlers;
    this.lastSeq = lastSeq;
    this.env = env;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.unlisten = this.env.listen({
      online: this.onBrowserOnline,
      offline: this.onBrowserOffline,
      visible: this.onVisible,
    });
    this.connect();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.unlisten?.();
    this.unlisten = null;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.dropSocket(CLOSE.normal);
    this.setStatus('offline');
  }

  /** Sends a frame that expects no answer; false when not connected. */
  send(frame: Exclude<UpFrame, RequestFrame | { t: 'hello' }>): boolean {
    const ws = this.openSocket();
    if (!ws) return false;
    ws.send(JSON.stringify(frame));
    return true;
  }

  /** The socket, when greeted and not closing. */
  private openSocket(): WebSocketLike | null {
    const ws = this.ws;
    return this.welcomed && ws && ws.readyState === WS_OPEN ? ws : null;
  }

  /** Sends a request; resolves with its result, rejects with a RequestError. */
  request<K extends RequestKind>(t: K, body: RequestBody<K>): Promise<ResultData[K]> {
    const ws = this.openSocket();
    if (!ws) {
      return Promise.reject(new RequestError('offline', 'You are offline. Please try again when you are back online.'));
    }
    const id = `r${this.nextId++}`;
    return new Promise<ResultData[K]>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new RequestError('timeout', 'The server did not answer in time. Please try again.'));
      }, REQUEST_TIMEOUT_MS);
      const schema = resultSchemas[t];
      const settle = (d: unknown) => {
        // A result that does not match its request's schema is refused like any bad frame.
        const r = schema.safeParse(d);
        if (r.success) resolve(r.data as ResultData[K]);
        else reject(new RequestError('internal', 'The server sent an answer this page cannot read.'));
      };
      this.pending.set(id, { resolve: settle, reject, timer });
      ws.send(JSON.stringify({ ...body, t, id }));
    });
  }

  private setStatus(status: ConnectionStatus): void {
    if (this.status === status) return;
    this.status = status;
    this.handlers.status(status);
  }

  private connect(): void {
    if (this.stopped || this.ws) return;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const offline = !this.env.online();
    this.setStatus(offline || this.failures >= FAILURES_BEFORE_OFFLINE ? 'offline' : 'connecting');
    if (offline) {
      // The 'online' event brings us back at once; this is a fallback.
      this.failures += 1;
      this.scheduleRetry();
      return;
    }
    let ws: WebSocketLike;
    try {
      ws = this.env.open();
    } catch {
      this.failures += 1;
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    // Cleared by the first frame (the welcome) or when the socket is dropped.
    this.silenceTimer = setTimeout(() => this.giveUp(), WELCOME_WITHIN_MS);
    let opened = false;
    ws.onopen = () => {
      opened = true;
      ws.send(JSON.stringify({ t: 'hello', v: PROTOCOL_VERSION, lastSeq: this.lastSeq() }));
    };
    ws.onmessage = (ev) => {
      if (this.ws !== ws || typeof ev.data !== 'string') return;
      this.onFrame(ev.data);
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.onClosed(ev.code, opened);
    };
  }

  private onFrame(text: string): void {
    const frame = parseDownFrame(text);
    if (!frame) return;
    // Any frame proves the connection alive.
    if (this.silenceTimer) clearTimeout(this.silenceTimer);
    this.silenceTimer = null;
    switch (frame.t) {
      case 'welcome':
        if (frame.v !== PROTOCOL_VERSION) {
          this.handlers.outdated();
          return;
        }
        this.welcomed = true;
        this.failures = 0;
        this.startPing();
        this.setStatus('online');
        this.handlers.welcome({
          userId: frame.userId,
          seq: frame.seq,
          resumed: frame.resumed,
          privacy: frame.privacy,
        });
        return;
      case 'update':
        this.handlers.update(frame.seq, frame.update);
        return;
      case 'result': {
        const p = this.pending.get(frame.id);
        if (!p) return;
        this.pending.delete(frame.id);
        clearTimeout(p.timer);
        p.resolve(frame.data);
        return;
      }
      case 'error': {
        const p = frame.id === null ? undefined : this.pending.get(frame.id);
        if (!p || frame.id === null) {
          this.handlers.serverError(frame.code, frame.message);
          return;
        }
        this.pending.delete(frame.id);
        clearTimeout(p.timer);
        p.reject(new RequestError(frame.code, frame.message));
        return;
      }
      case 'presence':
        this.handlers.presence(frame.presence);
        return;
      case 'typing':
        this.handlers.typing(frame.from, frame.typing);
        return;
      case 'pong':
        return;
      case 'global':
        this.handlers.global(frame.event);
        return;
      default: {
        const unhandled: never = frame;
        void unhandled;
      }
    }
  }

  private onClosed(code: number, opened: boolean): void {
    this.dropSocket(null);
    if (this.stopped) return;
    if (code === CLOSE.blocked) {
      this.stop();
      this.handlers.blocked();
      return;
    }
    if (code === CLOSE.versionMismatch) {
      this.stop();
      this.handlers.outdated();
      return;
    }
    if (code === CLOSE.sessionEnded || code === CLOSE.unauthenticated || !opened) {
      // A refused upgrade (401/403) cannot be told apart from a server that is down;
      // the session endpoint can: it signs us out, or sends a blocked user to /blocked.
      this.handlers.checkSession();
    }
    this.failures += 1;
    this.setStatus(this.failures > FAILURES_BEFORE_OFFLINE ? 'offline' : 'connecting');
    this.scheduleRetry();
  }

  /** The attempt in progress failed: back off and try again. */
  private giveUp(): void {
    if (this.stopped) return;
    this.dropSocket(CLOSE.normal);
    this.failures += 1;
    this.setStatus(this.failures > FAILURES_BEFORE_OFFLINE ? 'offline' : 'connecting');
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.stopped || this.retryTimer) return;
    const delay = backoffDelay(Math.max(0, this.failures - 1));
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, delay);
  }

  /** Forgets the current socket (closing it with `code` unless null) and fails its requests. */
  private dropSocket(code: number | null): void {
    const ws = this.ws;
    this.ws = null;
    this.welcomed = false;
    if (this.pingTimer) clearInterval(this.pingTimer);
    if (this.silenceTimer) clearTimeout(this.silenceTimer);
    this.pingTimer = null;
    this.silenceTimer = null;
    if (ws) {
      ws.onopen = null;
      ws.onmessage = null;
      ws.onclose = null;
      if (code !== null && ws.readyState <= WS_OPEN) ws.close(code);
    }
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) {
      clearTimeout(p.timer);
      p.reject(new RequestError('offline', 'The connection was lost. Please try again.'));
    }
  }

  private startPing(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = setInterval(() => {
      if (!this.send({ t: 'ping' })) return;
      this.silenceTimer ??= setTimeout(() => this.reconnectNow(), PONG_WITHIN_MS);
    }, PING_EVERY_MS);
  }

  /** Drops a socket that stopped answering and tries again straight away. */
  private reconnectNow(): void {
    if (this.stopped) return;
    this.dropSocket(CLOSE.normal);
    this.failures = Math.max(this.failures, 1);
    this.setStatus('connecting');
    this.connect();
  }

  private readonly onBrowserOnline = () => {
    if (this.ws) return;
    this.failures = Math.min(this.failures, 1);
    this.connect();
  };

  private readonly onBrowserOffline = () => {
    // The network is gone: do not wait for a heartbeat to notice.
    this.dropSocket(CLOSE.normal);
    this.setStatus('offline');
    this.scheduleRetry();
  };

  private readonly onVisible = () => {
    if (!this.ws && this.env.online()) this.connect();
  };
}

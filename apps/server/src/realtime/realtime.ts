/**
 * The WebSocket endpoint at /ws: the upgrade checks Origin and the session cookie,
 * then each socket becomes a Connection. Keeps the registry used to close the sockets
 * of an ended session or a blocked user at once.
 */
import { randomUUID } from 'node:crypto';
import type { Server as HttpServer, IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { CLOSE, type GlobalEvent, MAX_FRAME_BYTES } from '@app/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { WebSocketServer } from 'ws';
import { COOKIE, type Sessions } from '../auth/session.ts';
import type { OriginCheck } from '../security/origin.ts';
import type { LoggedUpdate } from '../storage/messages/chat-store.ts';
import { ConnSocket } from './conn-socket.ts';
import { Connection } from './connection.ts';
import { type RealtimeDeps, type RealtimeServices, socketServices } from './deps.ts';
import type { ControlMessage } from './hub.ts';

/** Sockets one user may hold at once (tabs and devices). */
export const MAX_SOCKETS_PER_USER = 20;
const HEARTBEAT_MS = 30_000;
/**
 * How long a client has to complete the closing handshake the server started before the
 * TCP connection is cut (ws's close timeout; frames it sends meanwhile are ignored).
 */
export const CLOSE_GRACE_MS = 1_500;
/** Sockets pinged at once (then 10 ms for everything else). */
const HEARTBEAT_SLICE = 200;

function parseCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

function ignore(): void {}

function refuse(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/**
 * The upgrade request's id: the proxy's X-Request-Id (deploy/nginx sets it; the HTTP logs use
 * the same header), else one made here.
 */
function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  if (typeof given === 'string' && /^[\w.:-]{1,64}$/.test(given)) return given;
  return `ws-${randomUUID()}`;
}

export class Realtime {
  // No clientTracking: the server's own set and a 'close' listener per socket cost memory,
  // and the registry below (with `open`) already knows every socket.
  private readonly wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_FRAME_BYTES,
    perMessageDeflate: false,
    clientTracking: false,
    WebSocket: ConnSocket,
    // ws 8.18+ (not in @types/ws yet).
    ...{ closeTimeout: CLOSE_GRACE_MS },
  });
  /** A user's sockets, in the order they opened (an array: cheaper than a Set for a few). */
  private readonly byUser = new Map<string, Connection[]>();
  /** Upgraded sockets not closed yet (close() waits for them). */
  private open = 0;
  private drained: (() => void) | null = null;
  private readonly deps: RealtimeDeps;
  private readonly sessions: Sessions;
  private readonly originAllowed: OriginCheck;
  private readonly onPublished: ((updates: LoggedUpdate[]) => void) | null;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly unsubscribeAll: () => void;

  constructor(
    services: RealtimeServices,
    opts: {
      log: FastifyBaseLogger;
      originAllowed: OriginCheck;
      frameRate?: { perSecond: number; burst: number };
      helloTimeoutMs: number;
      /** Committed log entries, after they went to the hub (Web Push looks at new messages). */
      onPublished?: (updates: LoggedUpdate[]) => void;
    },
  ) {
    this.onPublished = opts.onPublished ?? null;
    this.sessions = services.sessions;
    this.originAllowed = opts.originAllowed;
    this.deps = {
      ...socketServices(services),
      log: opts.log,
      publish: (updates) => this.publish(updates),
      frameRate: opts.frameRate ?? { perSecond: 20, burst: 100 },
      helloTimeoutMs: opts.helloTimeoutMs,
      renewSession: (tokenHash, now) => this.sessions.renew(tokenHash, now),
      expiryLookaheadMs: HEARTBEAT_MS + 1_000,
    };
    this.heartbeat = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.heartbeat.unref();
    // Global frames (from this process or another) go to every socket here.
    const offAll = services.hub.subscribeAll((frame) => {
      const text = JSON.stringify(frame);
      for (const conns of this.byUser.values()) for (const c of conns) c.deliverGlobal(frame, text);
    });
    const offControl = services.hub.subscribeControl((msg) => this.onControl(msg));
    const offResync = services.hub.onResync(() => {
      for (const conns of this.byUser.values()) for (const c of conns) void c.catchUp();
    });
    this.unsubscribeAll = () => {
      offAll();
      offControl();
      offResync();
    };
  }

  /** What every process does with its own sockets when any process asks. */
  private onControl(msg: ControlMessage): void {
    switch (msg.kind) {
      case 'closeUser':
        for (const c of this.byUser.get(msg.userId) ?? []) {
          if (c.tokenHash !== msg.keep) c.close(msg.code, 'session ended');
        }
        return;
      case 'closeSession':
        for (const conns of this.byUser.values()) {
          for (const c of conns) if (c.tokenHash === msg.tokenHash) c.close(msg.code, 'session ended');
        }
        return;
      case 'grant':
        for (const conns of this.byUser.values()) {
          for (const c of conns) if (c.tokenHash === msg.tokenHash) c.grantUntil = msg.until;
        }
        return;
      case 'presence':
      case 'presenceRefresh':
        return; // the presence tracker's
      default: {
        const unknown: never = msg;
        this.deps.log.warn({ msg: unknown }, 'unknown control message');
      }
    }
  }

  attach(server: HttpServer): void {
    server.on('upgrade', (req, socket, head) => {
      void this.upgrade(req, socket, head);
    });
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', ignore);
    try {
      const path = (req.url ?? '').split('?')[0];
      if (path !== '/ws') return refuse(socket, 404, 'Not Found');
      const origin = req.headers.origin;
      if (!origin || !this.originAllowed(origin, req.headers.host)) return refuse(socket, 403, 'Forbidden');
      const token = parseCookie(req.headers.cookie, COOKIE);
      const auth = await this.sessions.resolveToken(token);
      // Our own pages learn why with a close code; a browser cannot read an HTTP refusal.
      if (!auth || auth.user.blocked) {
        const code = auth ? CLOSE.blocked : CLOSE.unauthenticated;
        this.wss.handleUpgrade(req, socket, head, (ws) => {
          this.open += 1;
          // A malformed frame before the closing handshake ends is an 'error' event: with
          // no listener it would be thrown, and take the process down.
          ws.on('error', ignore);
          ws.once('close', () => this.socketClosed());
          ws.close(code, auth ? 'blocked' : 'sign in first');
        });
        return;
      }
      const open = this.byUser.get(auth.user.id);
      if (open && open.length >= MAX_SOCKETS_PER_USER) return refuse(socket, 429, 'Too Many Requests');
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        // ws has its own 'error' listener on the socket now.
        socket.removeListener('error', ignore);
        this.open += 1;
        const conn = new Connection(
          ws,
          { userId: auth.user.id, tokenHash: auth.tokenHash, expiresAt: auth.expiresAt, reqId: requestIdOf(req) },
          this.deps,
          (c) => this.forget(c),
        );
        conn.debug({}, 'socket opened');
        const conns = this.byUser.get(conn.userId);
        if (conns) conns.push(conn);
        else this.byUser.set(conn.userId, [conn]);
        // A block or sign-out that committed while this upgrade was in flight found no
        // socket to close: look again now that this one is registered.
        void this.recheck(conn, token);
      });
    } catch (err) {
      this.deps.log.error({ err, reqId: requestIdOf(req) }, 'websocket upgrade failed');
      refuse(socket, 500, 'Internal Server Error');
    }
  }

  private async recheck(conn: Connection, token: string | undefined): Promise<void> {
    try {
      const again = await this.sessions.resolveToken(token);
      if (!again) conn.close(CLOSE.sessionEnded, 'session ended');
      else if (again.user.blocked) conn.close(CLOSE.blocked, 'blocked');
    } catch (err) {
      this.deps.log.warn({ err }, 'socket session re-check failed');
    }
  }

  private forget(conn: Connection): void {
    this.socketClosed();
    const conns = this.byUser.get(conn.userId);
    if (!conns) return;
    const i = conns.indexOf(conn);
    if (i >= 0) conns.splice(i, 1);
    if (conns.length === 0) this.byUser.delete(conn.userId);
  }

  /** Upgraded sockets not closed yet. */
  get openSockets(): number {
    return this.open;
  }

  private socketClosed(): void {
    this.open -= 1;
    if (this.open === 0) this.drained?.();
  }

  /** Pushes committed update-log entries to their users' sockets (any process, via the hub). */
  publish(updates: LoggedUpdate[]): void {
    for (const u of updates) {
      this.deps.hub.publish(u.userId, { t: 'update', seq: u.seq, update: u.update });
      // Now and then, drop log entries too old to resume from.
      if (u.seq % 1000 === 0) {
        this.deps.chat.pruneLog(u.userId).catch((err: unknown) => this.deps.log.warn({ err }, 'log prune failed'));
      }
    }
    this.deps.metrics.updatesPublished.inc(updates.length);
    if (updates.length > 0) this.onPublished?.(updates);
  }

  /** Tells every signed-in socket, on every process (broadcasts, settings, badges). */
  broadcast(event: GlobalEvent): void {
    this.deps.hub.publishAll({ t: 'global', event });
  }

  /** A PIN was verified in this session: its open sockets (on any process) may see its locked chats. */
  grantSession(tokenHash: string, until: number): void {
    this.deps.hub.publishControl({ kind: 'grant', tokenHash, until });
  }

  /** The user's last-seen setting changed: their watchers get their presence anew. */
  refreshPresence(userId: string): Promise<void> {
    return this.deps.presence.refresh(userId);
  }

  /** Closes the sockets of one session, on every process (sign-out). */
  closeSession(tokenHash: string, code: number = CLOSE.sessionEnded): void {
    this.deps.hub.publishControl({ kind: 'closeSession', tokenHash, code });
  }

  /** Closes every socket of a user on every process, except those of `keep` (password change, block, deletion). */
  closeUser(userId: string, code: number, keep?: string): void {
    this.deps.hub.publishControl({ kind: 'closeUser', userId, code, ...(keep ? { keep } : {}) });
  }

  connectionCount(): number {
    let n = 0;
    for (const conns of this.byUser.values()) n += conns.length;
    return n;
  }

  /**
   * Drops sockets that did not answer the previous ping, and pings the rest: a slice at
   * a time, yielding between slices, so ten thousand pings (and their pongs) do not
   * stall message delivery. Sockets whose session ends before the next beat arm a timer
   * for it.
   */
  private async beat(): Promise<void> {
    const all: Connection[] = [];
    for (const conns of this.byUser.values()) for (const c of conns) all.push(c);
    for (let i = 0; i < all.length; i += HEARTBEAT_SLICE) {
      if (i > 0) await new Promise((r) => setTimeout(r, 10));
      const now = Date.now();
      const slice = all.slice(i, i + HEARTBEAT_SLICE);
      await this.checkSessions(slice);
      for (const c of slice) {
        if (c.ws.readyState !== c.ws.OPEN) continue;
        c.scheduleExpiry(now, this.deps.expiryLookaheadMs);
        if (!c.alive) {
          c.ws.terminate();
          continue;
        }
        c.alive = false;
        c.ws.ping();
      }
    }
  }

  /**
   * Closes the sockets whose session has ended or whose account is blocked, though no
   * control message said so (a reset from the shell, a message lost between processes).
   * The heartbeat runs it for every socket; it asks the database once per slice.
   */
  async checkSessions(conns: Connection[] = [...this.byUser.values()].flat()): Promise<void> {
    const open = conns.filter((c) => !c.gone);
    if (open.length === 0) return;
    try {
      const live = await this.deps.store.liveSessions(
        open.map((c) => c.tokenHash),
        Date.now(),
      );
      for (const c of open) {
        const blocked = live.get(c.tokenHash);
        if (blocked === undefined) c.close(CLOSE.sessionEnded, 'session ended');
        else if (blocked) c.close(CLOSE.blocked, 'blocked');
      }
    } catch (err) {
      this.deps.log.warn({ err }, 'session sweep failed');
    }
  }

  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    this.unsubscribeAll();
    for (const conns of this.byUser.values()) for (const c of conns) c.close(CLOSE.goingAway, 'server shutting down');
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    // The sockets' closing handshakes (the WebSocketServer tracks no clients to wait for).
    if (this.open > 0) {
      await new Promise<void>((resolve) => {
        this.drained = resolve;
      });
    }
  }
}

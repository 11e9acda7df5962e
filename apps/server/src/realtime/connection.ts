/**
 * One authenticated socket: its states (hello → syncing → ready → closing → closed), the
 * hello/resume handshake, per-socket frame limiting, and the hold and catch-up that keep
 * its updates gap-free. Its frames after the welcome go to dispatch.ts (pacing, the
 * handler table of handlers.ts, publishing, results). What it may see of each frame is
 * decided by privacy-view.ts.
 *
 * Once the server decides to close a socket (block, sign-out, password change, account
 * deletion, session expiry, a protocol error, a failed handshake) it is `closing`: no
 * further frame from it is handled and nothing more is delivered to it, whatever the
 * client does; ws ends the TCP connection if the client has not closed within the close
 * timeout (realtime.ts).
 */

import {
  CLOSE,
  type DownFrame,
  PRIVACY_DEFAULTS,
  PROTOCOL_VERSION,
  type Presence,
  type Privacy,
  type Update,
} from '@app/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { RawData } from 'ws';
import { TOUCH_EVERY_MS } from '../auth/session.ts';
import { payloadOf } from '../storage/messages/chat-store.ts';
import { type ConnSocket, cork, type SocketOwner } from './conn-socket.ts';
import type { RealtimeDeps, SocketAuth } from './deps.ts';
import { dispatch, type Requester } from './dispatch.ts';
import { type PrivacyView, sharedPrivacy, viewPresence, viewUpdate } from './privacy-view.ts';
import { Typing } from './typing.ts';
import { parseUpFrame } from './up-frame.ts';
import { UpdateStream } from './update-stream.ts';

const NONE: ReadonlySet<string> = new Set();

/** The queue of an idle socket (shared: idle sockets keep no promise of their own). */
const IDLE: Promise<void> = Promise.resolve();
/** Sockets this process has opened (each one's number, in its log lines). */
let connections = 0;

export class Connection extends UpdateStream implements SocketOwner, Requester, PrivacyView {
  readonly ws: ConnSocket;
  readonly userId: string;
  readonly tokenHash: string;
  readonly deps: RealtimeDeps;
  /** This process's number for the socket, and the id of the request that opened it (for logs). */
  readonly connId: number;
  readonly reqId: string;
  private childLog: FastifyBaseLogger | null = null;
  private readonly onClosed: (conn: Connection) => void;
  private state: 'hello' | 'syncing' | 'ready' | 'closing' | 'closed' = 'hello';
  /** When the session ends (ms); checked against the database when it passes. */
  private expiresAt: number;
  /** When the database last confirmed the session. */
  private checkedAt = Date.now();
  /** Until the hello: its deadline. Then, when the session ends soon: the expiry check. */
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  // Created on first use: most sockets are idle, and each empty set or map costs a hash
  // table (this is most of a connection's memory beyond ws's).
  private watched: ReadonlySet<string> = NONE;
  private typing: Typing | null = null;
  private presenceCounted = false;
  private queue: Promise<void> = IDLE;
  /** Sends of this socket waiting for their commit (dispatch.ts keeps it); null when none. */
  sending: Set<Promise<void>> | null = null;
  /** The user's own privacy settings: which ticks and last-seen times this socket shows. */
  privacy: Privacy = sharedPrivacy(PRIVACY_DEFAULTS);
  /** The user's locked chats: their text reaches this socket only under a PIN grant. */
  locked: Set<string> | null = null;
  /** Until when this session's PIN grant opens locked chats (ms). */
  grantUntil = 0;
  alive = true;

  constructor(ws: ConnSocket, auth: SocketAuth, deps: RealtimeDeps, onClosed: (conn: Connection) => void) {
    super();
    this.ws = ws;
    this.userId = auth.userId;
    this.tokenHash = auth.tokenHash;
    this.expiresAt = auth.expiresAt;
    this.reqId = auth.reqId;
    this.connId = ++connections;
    this.deps = deps;
    this.onClosed = onClosed;
    ws.conn = this;
    // A socket that never says hello does not stay open.
    this.timer = setTimeout(() => this.close(CLOSE.protocolError, 'hello expected'), deps.helloTimeoutMs);
    this.timer.unref();
  }

  /**
   * The socket's logger: every line names the user, the connection and the request that
   * opened it. Made on first use (most sockets never log), so idle sockets do not pay for it.
   */
  get log(): FastifyBaseLogger {
    this.childLog ??= this.deps.log.child({ userId: this.userId, conn: this.connId, reqId: this.reqId });
    return this.childLog;
  }

  /** A debug line, without making the socket's logger when debug lines are off. */
  debug(fields: Record<string, unknown>, msg: string): void {
    const level = this.deps.log.level;
    if (level === 'debug' || level === 'trace') this.log.debug(fields, msg);
  }

  /** Closing or closed: nothing is handled or delivered any more. */
  get gone(): boolean {
    return this.state === 'closing' || this.state === 'closed';
  }

  private clearTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  // ---- the session behind the socket ------------------------------------------------

  /**
   * Arms the expiry check if the session ends within `withinMs` (the heartbeat calls this,
   * so a socket keeps no timer of its own until its session is about to end).
   */
  scheduleExpiry(now: number, withinMs: number): void {
    if (this.state !== 'ready' || this.timer !== null || this.expiresAt - now > withinMs) return;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        void this.sessionLive(true);
      },
      Math.max(0, this.expiresAt - now),
    );
    this.timer.unref();
  }

  /**
   * Whether the session is still live. The database is asked when it is due: when the
   * session should have ended, or an hour after it was last asked (a socket in use slides
   * its session forward as HTTP requests do). When it has ended, the socket closes.
   */
  private async sessionLive(due = false): Promise<boolean> {
    if (this.gone) return false;
    const now = Date.now();
    if (!due && now < this.expiresAt && now - this.checkedAt < TOUCH_EVERY_MS) return true;
    this.clearTimer();
    this.checkedAt = now;
    let expiresAt: number | null;
    try {
      expiresAt = await this.deps.renewSession(this.tokenHash, now);
    } catch (err) {
      this.log.warn({ err }, 'session check failed');
      return !this.gone;
    }
    if (expiresAt === null) {
      this.close(CLOSE.sessionEnded, 'session ended');
      return false;
    }
    this.expiresAt = expiresAt;
    this.scheduleExpiry(Date.now(), this.deps.expiryLookaheadMs);
    return !this.gone;
  }

  // ---- what this socket may see and do (Requester, PrivacyView) ----------------------

  get granted(): boolean {
    return this.grantUntil > Date.now();
  }

  view(): PrivacyView {
    return this;
  }

  isLocked(chatId: string): boolean {
    return this.locked?.has(chatId) === true;
  }

  async ensureGranted(): Promise<boolean> {
    if (this.granted) return true;
    this.grantUntil = await this.deps.pins.sessionGrant(this.tokenHash);
    return this.granted;
  }

  setLocked(chatId: string, locked: boolean): void {
    if (!locked) {
      this.locked?.delete(chatId);
      return;
    }
    this.locked ??= new Set();
    this.locked.add(chatId);
  }

  watch(userIds: ReadonlySet<string>): void {
    this.deps.presence.unwatch(this, this.watched);
    this.watched = userIds;
    this.deps.presence.watch(this, this.watched);
  }

  setTyping(to: string, typing: boolean): Promise<void> {
    this.typing ??= new Typing(this.userId, this.deps);
    return this.typing.set(to, typing);
  }

  sentTo(to: string): void {
    this.typing?.sent(to);
  }

  /** Live updates that change what this socket may see. */
  private track(u: Update): void {
    if (u.kind === 'privacy') this.privacy = sharedPrivacy(u.privacy);
    else if (u.kind === 'chat') this.setLocked(u.chat.chatId, u.chat.locked);
    // A message's summary may say locked (never unlocked: only a `chat` update unlocks).
    else if (u.kind === 'message' && u.chat?.locked) this.setLocked(u.chat.chatId, true);
    else if (u.kind === 'access') this.typing?.accessChanged(u.peerId);
  }

  // ---- sending -------------------------------------------------------------------------

  send(frame: DownFrame): void {
    this.sendText(JSON.stringify(frame));
  }

  private sendText(text: string): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    cork(this.ws);
    this.ws.send(text);
  }

  sendPresence(presence: Presence): void {
    this.send({ t: 'presence', presence: viewPresence(this, presence) });
  }

  private sendUpdate(seq: number, update: Update): void {
    const view = viewUpdate(this, update);
    // Unchanged, it goes out as the JSON the update log stored (serialized once for all).
    if (view === update) this.sendText(`{"t":"update","seq":${seq},"update":${payloadOf(update)}}`);
    else this.send({ t: 'update', seq, update: view });
  }

  /**
   * The server closes the socket: from now on no frame from it is handled and nothing is
   * delivered to it; ws terminates it if the client does not complete the close in time.
   */
  close(code: number, reason: string): void {
    if (this.state !== 'closed') this.state = 'closing';
    this.clearTimer();
    if (this.ws.readyState === this.ws.OPEN || this.ws.readyState === this.ws.CONNECTING) this.ws.close(code, reason);
  }

  // ---- delivery (UpdateStream) -----------------------------------------------------

  protected phase(): 'hold' | 'send' | 'drop' {
    return this.gone ? 'drop' : this.state === 'ready' ? 'send' : 'hold';
  }

  protected sendLogged(seq: number, update: Update): void {
    this.lastSentSeq = seq;
    this.track(update);
    this.sendUpdate(seq, update);
  }

  protected sendOther(frame: DownFrame): void {
    if (frame.t === 'presence') this.sendPresence(frame.presence);
    else this.send(frame);
  }

  /**
   * A frame for every socket, serialised once for all of them. Delivered once this one
   * has greeted (a welcome comes first; before it, the welcome's fresh load covers it).
   */
  deliverGlobal(frame: DownFrame, text: string): void {
    if (this.state === 'hello' || this.gone) return;
    if (this.state === 'syncing') {
      this.hold(frame);
      return;
    }
    this.sendText(text);
  }

  // ---- receiving ----------------------------------------------------------------------

  /**
   * A frame from the socket. Frames are handled one at a time, in arrival order: a result
   * never overtakes the welcome, and an edit never overtakes the send it follows.
   */
  receive(data: RawData, isBinary: boolean): void {
    const text = data.toString();
    const next = this.queue.then(() => this.onMessage(text, isBinary)).catch((err: unknown) => this.failed(err));
    this.queue = next;
    void next.then(() => {
      if (this.queue === next) this.queue = IDLE;
    });
  }

  /**
   * A frame's handling failed outside a request (the handshake: the database or Redis
   * refused): logged, and the socket is closed with a code the client reconnects on with
   * backoff, rather than left silent.
   */
  private failed(err: unknown): void {
    if (this.gone) return;
    this.log.error({ err, state: this.state }, 'socket failed');
    this.close(CLOSE.serverError, 'server error');
  }

  private async onMessage(text: string, isBinary: boolean): Promise<void> {
    if (this.gone) return;
    if (!this.ws.takeToken(this.deps.frameRate)) {
      this.deps.metrics.rateLimited.inc({ scope: 'socket' });
      if (this.ws.refused > 200) this.close(CLOSE.rateLimited, 'too many frames');
      else this.send({ t: 'error', id: null, code: 'rate_limited', message: 'Too many messages. Please slow down.' });
      return;
    }
    const parsed = parseUpFrame(text, isBinary);
    if ('refusal' in parsed) {
      this.send(parsed.refusal);
      return;
    }
    const frame = parsed.frame;
    if (this.state === 'hello') {
      if (frame.t === 'hello') await this.onHello(frame.v, frame.lastSeq);
      else this.close(CLOSE.protocolError, 'hello first');
      return;
    }
    if (frame.t === 'hello') {
      this.send({ t: 'error', id: null, code: 'invalid_frame', message: 'Already greeted' });
      return;
    }
    // A session that ended while the socket was open ends it (checked when it is due).
    if (!(await this.sessionLive())) return;
    await dispatch(this, frame);
  }

  private async onHello(v: number, lastSeq: number | null): Promise<void> {
    if (v !== PROTOCOL_VERSION) {
      this.close(CLOSE.versionMismatch, `protocol ${PROTOCOL_VERSION} required`);
      return;
    }
    this.clearTimer();
    this.state = 'syncing';
    this.presenceCounted = true;
    const online = this.deps.presence
      .connect(this.userId)
      .catch((err: unknown) => this.log.warn({ err }, 'presence connect failed'));
    // Subscribe first and buffer, so nothing committed between the backlog read and now is lost.
    // A bound method: unlike an arrow function, it keeps no context of this call alive.
    const unsubscribe = await this.deps.hub.subscribe(this.userId, this.deliver.bind(this));
    if (this.gone) {
      unsubscribe();
      return;
    }
    this.unsubscribe = unsubscribe;
    // The current state decides what the backlog may show (a chat locked since is masked).
    this.privacy = sharedPrivacy(await this.deps.social.privacy(this.userId));
    for (const id of await this.deps.social.lockedChats(this.userId)) this.setLocked(id, true);
    this.grantUntil = await this.deps.pins.sessionGrant(this.tokenHash);
    const backlog = lastSeq === null ? null : await this.deps.chat.updatesSince(this.userId, lastSeq);
    const seq = backlog === null ? await this.deps.chat.currentSeq(this.userId) : (lastSeq as number);
    // Once welcomed, the user is online for everyone (the answers to others' requests agree).
    await online;
    if (this.gone) return;
    this.welcome(seq, backlog);
  }

  private welcome(seq: number, backlog: { seq: number; update: Update }[] | null): void {
    this.send({
      t: 'welcome',
      v: PROTOCOL_VERSION,
      userId: this.userId,
      seq,
      resumed: backlog !== null,
      privacy: this.privacy,
    });
    this.lastSentSeq = seq;
    for (const u of backlog ?? []) {
      this.sendUpdate(u.seq, u.update);
      this.lastSentSeq = u.seq;
    }
    this.state = 'ready';
    this.release();
    this.scheduleExpiry(Date.now(), this.deps.expiryLookaheadMs);
  }

  /** The socket closed. */
  async onClose(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.debug({}, 'socket closed');
    this.clearTimer();
    this.unsubscribe?.();
    this.deps.presence.unwatch(this, this.watched);
    this.typing?.stopAll();
    this.onClosed(this);
    if (this.presenceCounted) {
      await this.deps.presence
        .disconnect(this.userId)
        .catch((err: unknown) => this.log.warn({ err }, 'presence disconnect failed'));
    }
  }
}

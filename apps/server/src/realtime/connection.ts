/**
 * One authenticated socket: the hello/resume handshake, request dispatch with an
 * exhaustive switch, per-socket rate limiting, presence watching and typing.
 *
 * Once the server decides to close a socket (block, sign-out, password change, account
 * deletion, session expiry, a protocol error) it is `closing`: no further frame from it
 * is handled and nothing more is delivered to it, whatever the client does; ws ends the
 * TCP connection if the client has not closed within the close timeout (realtime.ts).
 */

import type { Socket } from 'node:net';
import {
  type ChatMessage,
  type ChatSummary,
  CLOSE,
  chatIdOf,
  type DownFrame,
  HISTORY_PAGE,
  PRIVACY_DEFAULTS,
  PROTOCOL_VERSION,
  type Presence,
  type Privacy,
  type ResultData,
  SOCIAL_MSG,
  type Update,
  type UpFrame,
  USERS_PAGE,
  upFrameSchema,
  type WsErrorCode,
} from '@app/protocol';
import { type RawData, WebSocket } from 'ws';
import { TOUCH_EVERY_MS } from '../auth/session.ts';
import { ChatError, payloadOf, RevokedError } from '../storage/chat-store.ts';
import type { RealtimeDeps } from './realtime.ts';

function assertNever(x: never): never {
  throw new Error(`unhandled frame ${JSON.stringify(x)}`);
}

const NONE: ReadonlySet<string> = new Set();
/** Frames that write (or reach another user): paced per user. */
const WRITES: ReadonlySet<UpFrame['t']> = new Set([
  'send',
  'edit',
  'delete',
  'delivered',
  'read',
  'typing',
  'chatFlags',
  'notificationsSeen',
  'respondRequest',
]);
/** The queue of an idle socket (shared: idle sockets keep no promise of their own). */
const IDLE: Promise<void> = Promise.resolve();

/** The eight privacy settings, shared by the sockets rather than copied into each. */
const PRIVACIES: readonly Privacy[] = Array.from({ length: 8 }, (_, i) => ({
  readReceipts: (i & 1) !== 0,
  lastSeen: (i & 2) !== 0,
  requireRequest: (i & 4) !== 0,
}));
function sharedPrivacy(p: Privacy): Privacy {
  return PRIVACIES[(p.readReceipts ? 1 : 0) | (p.lastSeen ? 2 : 0) | (p.requireRequest ? 4 : 0)] as Privacy;
}

/**
 * Frames written in one turn of the event loop leave in one write per socket: the first
 * frame corks the socket and the rest of the turn's frames (a message's result, its
 * update and its summary, or many messages at once) join it until the uncork.
 */
const corked: WebSocket[] = [];
function cork(ws: WebSocket): void {
  const socket = (ws as unknown as { _socket: Socket })._socket;
  if (socket.writableCorked > 0) return;
  socket.cork();
  corked.push(ws);
  if (corked.length === 1) process.nextTick(uncorkAll);
}
function uncorkAll(): void {
  for (const ws of corked.splice(0)) (ws as unknown as { _socket: Socket })._socket.uncork();
}

class FrameError extends Error {
  readonly code: WsErrorCode;
  constructor(code: WsErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/**
 * The server's sockets (the WebSocketServer's `WebSocket` class). Once a Connection owns
 * one, the events it handles go straight to it: no listener closures, and no entries in
 * the socket's listener table (together about 350 bytes a socket).
 */
export class ConnSocket extends WebSocket {
  conn: Connection | null = null;

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

export class Connection {
  readonly ws: ConnSocket;
  readonly userId: string;
  readonly tokenHash: string;
  private readonly deps: RealtimeDeps;
  private state: 'hello' | 'syncing' | 'ready' | 'closing' | 'closed' = 'hello';
  /** When the session ends (ms); checked against the database when it passes. */
  private expiresAt: number;
  /** When the database last confirmed the session. */
  private checkedAt = Date.now();
  /** Until the hello: its deadline. Then, when the session ends soon: the expiry check. */
  private timer: NodeJS.Timeout | null = null;
  private lastSentSeq = 0;
  private pending: DownFrame[] | null = null;
  private unsubscribe: (() => void) | null = null;
  // The sets and maps below are created on first use: most sockets are idle, and each
  // empty one costs a hash table (this is most of a connection's memory beyond ws's).
  private watched: ReadonlySet<string> = NONE;
  private typingTo: Set<string> | null = null;
  /** Token bucket (deps.frameRate): perSecond frames a second on average, bursts up to burst. */
  private tokens: number;
  private tokensAt = Date.now();
  private refused = 0;
  private presenceCounted = false;
  private queue: Promise<void> = IDLE;
  /** Typing targets already checked to exist, not be blocked, and take our messages. */
  private typingTargets: Map<string, boolean> | null = null;
  /** The user's own privacy settings: which ticks and last-seen times this socket shows. */
  private privacy: Privacy = sharedPrivacy(PRIVACY_DEFAULTS);
  /** The user's locked chats: their text reaches this socket only under a PIN grant. */
  private locked: Set<string> | null = null;
  /** Until when this session's PIN grant opens locked chats (ms). */
  grantUntil = 0;
  alive = true;

  constructor(ws: ConnSocket, userId: string, tokenHash: string, expiresAt: number, deps: RealtimeDeps) {
    this.ws = ws;
    this.userId = userId;
    this.tokenHash = tokenHash;
    this.expiresAt = expiresAt;
    this.deps = deps;
    this.tokens = deps.frameRate.burst;
    ws.conn = this;
    // A socket that never says hello does not stay open.
    this.timer = setTimeout(() => this.close(CLOSE.protocolError, 'hello expected'), deps.helloTimeoutMs);
    this.timer.unref();
  }

  /** Closing or closed: nothing is handled or delivered any more. */
  get gone(): boolean {
    return this.state === 'closing' || this.state === 'closed';
  }

  private clearTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

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
      this.deps.log.warn({ err }, 'session check failed');
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

  /**
   * A frame from the socket. Frames are handled one at a time, in arrival order: a result
   * never overtakes the welcome, and an edit never overtakes the send it follows.
   */
  receive(data: RawData, isBinary: boolean): void {
    const text = data.toString();
    const next = this.queue.then(() => this.onMessage(text, isBinary)).catch(() => {});
    this.queue = next;
    void next.then(() => {
      if (this.queue === next) this.queue = IDLE;
    });
  }

  private takeToken(): boolean {
    const { perSecond, burst } = this.deps.frameRate;
    const now = Date.now();
    this.tokens = Math.min(burst, this.tokens + ((now - this.tokensAt) / 1000) * perSecond);
    this.tokensAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  send(frame: DownFrame): void {
    this.sendText(JSON.stringify(frame));
  }

  private sendText(text: string): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    cork(this.ws);
    this.ws.send(text);
  }

  sendPresence(presence: Presence): void {
    this.send({ t: 'presence', presence: this.viewPresence(presence) });
  }

  // ---- what this socket may see ----------------------------------------------------

  private granted(): boolean {
    return this.grantUntil > Date.now();
  }

  /** A grant may have been given on another process: ask the database before refusing. */
  private async ensureGranted(): Promise<boolean> {
    if (this.granted()) return true;
    this.grantUntil = await this.deps.social.sessionGrant(this.tokenHash);
    return this.granted();
  }

  private setLocked(chatId: string, locked: boolean): void {
    if (!locked) {
      this.locked?.delete(chatId);
      return;
    }
    this.locked ??= new Set();
    this.locked.add(chatId);
  }

  /** Someone who hides their own last seen sees no one's. */
  private viewPresence(p: Presence): Presence {
    return this.privacy.lastSeen || p.lastSeen === null ? p : { ...p, lastSeen: null };
  }

  /**
   * A message as this socket may see it: with read receipts off, the user's own messages
   * never show read; in a locked chat without a PIN grant the text stays on the server.
   */
  private viewMessage(m: ChatMessage): ChatMessage {
    let v = m;
    if (!this.privacy.readReceipts && m.senderId === this.userId && m.status === 'read') {
      v = { ...v, status: 'delivered', readAt: null };
    }
    if (this.locked?.has(m.chatId) && !this.granted()) v = { ...v, text: '' };
    return v;
  }

  /**
   * A summary logged before the chat was locked (replayed on resume) says locked: false;
   * the chat's current lock decides too.
   */
  private viewChat(c: ChatSummary): ChatSummary {
    const locked = c.locked || this.locked?.has(c.chatId) === true;
    return locked && c.lastMessage !== null && !this.granted() ? { ...c, lastMessage: null } : c;
  }

  /** The update as this socket may see it: the same object when nothing is hidden. */
  private viewUpdate(u: Update): Update {
    if (u.kind === 'message') {
      const message = this.viewMessage(u.message);
      return message === u.message ? u : { kind: 'message', message };
    }
    if (u.kind === 'chat') {
      const chat = this.viewChat(u.chat);
      return chat === u.chat ? u : { kind: 'chat', chat };
    }
    return u;
  }

  /** Live updates that change what this socket may see. */
  private track(u: Update): void {
    if (u.kind === 'privacy') this.privacy = sharedPrivacy(u.privacy);
    else if (u.kind === 'chat') {
      this.setLocked(u.chat.chatId, u.chat.locked);
    } else if (u.kind === 'access') this.typingTargets?.delete(u.peerId);
  }

  private sendUpdate(seq: number, update: Update): void {
    const view = this.viewUpdate(update);
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

  /**
   * Frames from the hub. Update frames are deduplicated by seq against what was already
   * sent; one that skips a seq (another process's update overtook ours, or a pub/sub
   * message was lost) is held back while the gap is read from the database.
   */
  private deliver(frame: DownFrame): void {
    if (this.gone) return;
    if (this.state === 'syncing' || this.state === 'hello') {
      this.hold(frame);
      return;
    }
    if (frame.t === 'update') {
      if (frame.seq <= this.lastSentSeq) return;
      if (this.catchingUp || frame.seq > this.lastSentSeq + 1) {
        this.hold(frame);
        void this.catchUp();
        return;
      }
      this.lastSentSeq = frame.seq;
      this.track(frame.update);
      this.sendUpdate(frame.seq, frame.update);
      return;
    }
    if (frame.t === 'presence') {
      this.sendPresence(frame.presence);
      return;
    }
    this.send(frame);
  }

  private catchingUp = false;

  /** Holds a frame back until the welcome or a catch-up has gone out. */
  private hold(frame: DownFrame): void {
    if (this.pending) this.pending.push(frame);
    else this.pending = [frame];
  }

  /**
   * Sends what the update log holds after the last seq this socket sent, then the frames
   * held back meanwhile. Also run for every socket after the hub reconnects.
   */
  async catchUp(): Promise<void> {
    if (this.catchingUp || this.state !== 'ready') return;
    this.catchingUp = true;
    const before = this.lastSentSeq;
    try {
      const backlog = await this.deps.chat.updatesSince(this.userId, this.lastSentSeq);
      if (backlog === null) {
        // Pruned past our position: the client reconnects and reloads its state.
        this.close(CLOSE.goingAway, 'too far behind');
        return;
      }
      if (this.state !== 'ready') return;
      for (const u of backlog) {
        if (u.seq <= this.lastSentSeq) continue;
        this.lastSentSeq = u.seq;
        this.track(u.update);
        this.sendUpdate(u.seq, u.update);
      }
    } catch (err) {
      this.deps.log.warn({ err }, 'update catch-up failed');
    } finally {
      this.catchingUp = false;
    }
    const held = this.pending ?? [];
    this.pending = null;
    for (const f of held) {
      // The log had nothing new (the frame's update is not visible yet, or is gone): send
      // it as it is rather than wait for ever.
      if (f.t === 'update' && this.lastSentSeq === before && f.seq > this.lastSentSeq + 1) {
        this.lastSentSeq = f.seq;
        this.track(f.update);
        this.sendUpdate(f.seq, f.update);
      } else this.deliver(f);
    }
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

  private async onMessage(text: string, isBinary: boolean): Promise<void> {
    if (this.gone) return;
    if (!this.takeToken()) {
      this.refused += 1;
      if (this.refused > 200) this.close(CLOSE.rateLimited, 'too many frames');
      else this.send({ t: 'error', id: null, code: 'rate_limited', message: 'Too many messages. Please slow down.' });
      return;
    }
    let raw: unknown;
    try {
      if (isBinary) throw new Error('binary');
      raw = JSON.parse(text);
    } catch {
      this.send({ t: 'error', id: null, code: 'invalid_frame', message: 'Frames must be JSON text' });
      return;
    }
    const parsed = upFrameSchema.safeParse(raw);
    if (!parsed.success) {
      const id =
        typeof (raw as { id?: unknown })?.id === 'string' ? ((raw as { id: string }).id.slice(0, 64) as string) : null;
      const message = parsed.error.issues[0]?.message ?? 'Invalid frame';
      this.send({ t: 'error', id, code: 'invalid_frame', message });
      return;
    }
    const frame = parsed.data;
    if (this.state === 'hello') {
      if (frame.t !== 'hello') {
        this.close(CLOSE.protocolError, 'hello first');
        return;
      }
      await this.onHello(frame.v, frame.lastSeq);
      return;
    }
    if (frame.t === 'hello') {
      this.send({ t: 'error', id: null, code: 'invalid_frame', message: 'Already greeted' });
      return;
    }
    // A session that ended while the socket was open ends it (checked when it is due).
    if (!(await this.sessionLive())) return;
    await this.handle(frame);
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
      .catch((err: unknown) => this.deps.log.warn({ err }, 'presence connect failed'));
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
    this.grantUntil = await this.deps.social.sessionGrant(this.tokenHash);
    const backlog = lastSeq === null ? null : await this.deps.chat.updatesSince(this.userId, lastSeq);
    const seq = backlog === null ? await this.deps.chat.currentSeq(this.userId) : (lastSeq as number);
    // Once welcomed, the user is online for everyone (the answers to others' requests agree).
    await online;
    if (this.gone) return;
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
    const buffered = this.pending ?? [];
    this.pending = null;
    this.state = 'ready';
    for (const f of buffered) this.deliver(f);
    this.scheduleExpiry(Date.now(), this.deps.expiryLookaheadMs);
  }

  private reply<K extends keyof ResultData>(id: string, _kind: K, data: ResultData[K]): void {
    this.send({ t: 'result', id, data });
  }

  private async handle(frame: Exclude<UpFrame, { t: 'hello' }>): Promise<void> {
    const id = 'id' in frame ? frame.id : null;
    try {
      await this.dispatch(frame);
    } catch (e) {
      // The account or session behind this socket is gone: nothing more from it.
      if (e instanceof RevokedError) {
        this.close(e.why === 'blocked' ? CLOSE.blocked : CLOSE.sessionEnded, e.why);
        return;
      }
      if (e instanceof ChatError || e instanceof FrameError) {
        this.send({ t: 'error', id, code: e.code, message: e.message });
        return;
      }
      this.deps.log.error({ err: e, t: frame.t }, 'realtime request failed');
      this.send({ t: 'error', id, code: 'internal', message: 'Something went wrong. Please try again.' });
    }
  }

  private async dispatch(frame: Exclude<UpFrame, { t: 'hello' }>): Promise<void> {
    const { chat } = this.deps;
    const me = this.userId;
    // Writes and typing are paced per user, whichever of their sockets and processes they
    // come through (the frame limit above is per socket). Typing over the pace is dropped.
    if (WRITES.has(frame.t) && !(await this.deps.writePace.take(me))) {
      if (frame.t === 'typing') return;
      throw new FrameError('rate_limited', 'Too many messages. Please slow down.');
    }
    // Closed while waiting: nothing more from this socket.
    if (this.gone) return;
    const now = Date.now();
    switch (frame.t) {
      case 'ping':
        this.send({ t: 'pong' });
        return;
      case 'typing': {
        if (frame.to === me) return;
        this.typingTargets ??= new Map();
        let ok = this.typingTargets.get(frame.to);
        if (ok === undefined) {
          const target = await this.deps.store.userById(frame.to);
          ok = target !== null && !target.blocked && (await this.deps.social.access(me, frame.to)).state === 'open';
          if (this.typingTargets.size > 1000) this.typingTargets.clear();
          this.typingTargets.set(frame.to, ok);
        }
        if (!ok) return;
        if (frame.typing) {
          this.typingTo ??= new Set();
          this.typingTo.add(frame.to);
        } else this.typingTo?.delete(frame.to);
        this.deps.hub.publish(frame.to, { t: 'typing', from: me, typing: frame.typing });
        return;
      }
      case 'send': {
        if (frame.to === me) throw new FrameError('forbidden', 'You cannot message yourself');
        const r = await chat.send(me, frame.to, frame.msgId, frame.text, now, this.tokenHash);
        this.deps.publish(r.updates);
        if (this.typingTo?.delete(frame.to)) this.deps.hub.publish(frame.to, { t: 'typing', from: me, typing: false });
        this.reply(
          frame.id,
          'send',
          'request' in r ? { request: r.request } : { message: this.viewMessage(r.message) },
        );
        return;
      }
      case 'edit': {
        this.ownChat(frame.chatId);
        const r = await chat.edit(me, frame.chatId, frame.msgId, frame.text, now, this.tokenHash);
        this.deps.publish(r.updates);
        this.reply(frame.id, 'edit', { message: this.viewMessage(r.message) });
        return;
      }
      case 'delete': {
        this.ownChat(frame.chatId);
        const r = await chat.delete(me, frame.chatId, frame.msgId, now, this.tokenHash);
        this.deps.publish(r.updates);
        this.reply(frame.id, 'delete', { message: this.viewMessage(r.message) });
        return;
      }
      case 'delivered': {
        this.ownChat(frame.chatId);
        const updates = await chat.delivered(me, frame.chatId, frame.msgIds, now, this.tokenHash);
        this.deps.publish(updates);
        this.reply(frame.id, 'delivered', { count: updates.length / 2 });
        return;
      }
      case 'read': {
        const updates = await chat.read(me, frame.peerId, now, this.tokenHash);
        this.deps.publish(updates);
        this.reply(frame.id, 'read', { count: updates.filter((u) => u.update.kind === 'message').length / 2 });
        return;
      }
      case 'history': {
        const chatId = chatIdOf(me, frame.peerId);
        if (this.locked?.has(chatId) && !(await this.ensureGranted())) {
          throw new FrameError('locked', SOCIAL_MSG.chatLocked);
        }
        const page = await chat.history(chatId, frame.limit ?? HISTORY_PAGE, frame.before);
        const peer = await chat.publicUser(frame.peerId);
        const access =
          frame.peerId === me ? { state: 'open' as const } : await this.deps.social.access(me, frame.peerId);
        this.reply(frame.id, 'history', {
          messages: page.messages.map((m) => this.viewMessage(m)),
          hasMore: page.hasMore,
          peer,
          access,
        });
        return;
      }
      case 'chats':
        this.reply(frame.id, 'chats', { chats: (await chat.chats(me)).map((c) => this.viewChat(c)) });
        return;
      case 'users': {
        const users = await chat.searchUsers(me, frame.query, frame.after, USERS_PAGE);
        const last = users.at(-1);
        const online = await this.deps.presence.online(users.map((u) => u.id));
        this.reply(frame.id, 'users', {
          users: users.map((u) => ({ ...u, online: online.has(u.id) })),
          next: users.length === USERS_PAGE && last ? last.username.toLowerCase() : null,
        });
        return;
      }
      case 'user': {
        const user = await chat.publicUser(frame.userId);
        if (!user) throw new FrameError('not_found', 'User not found');
        this.reply(frame.id, 'user', {
          user,
          presence: this.viewPresence(await this.deps.presence.get(frame.userId)),
        });
        return;
      }
      case 'watch': {
        this.deps.presence.unwatch(this, this.watched);
        this.watched = new Set(frame.userIds);
        this.deps.presence.watch(this, this.watched);
        const presence = await Promise.all([...this.watched].map((u) => this.deps.presence.get(u)));
        this.reply(frame.id, 'watch', { presence: presence.map((p) => this.viewPresence(p)) });
        return;
      }
      case 'chatFlags': {
        const chatId = chatIdOf(me, frame.peerId);
        // Unlocking shows the chat again: only under a PIN grant.
        if (frame.locked === false && this.locked?.has(chatId) && !(await this.ensureGranted())) {
          throw new FrameError('locked', SOCIAL_MSG.chatLocked);
        }
        const r = await this.deps.social.setChatFlags(me, frame.peerId, frame, now, this.tokenHash);
        this.setLocked(chatId, r.chat.locked);
        this.deps.publish(r.updates);
        this.reply(frame.id, 'chatFlags', { chat: this.viewChat(r.chat) });
        return;
      }
      case 'notifications':
        this.reply(frame.id, 'notifications', await this.deps.social.notifications(me));
        return;
      case 'notificationsSeen':
        this.deps.publish(await this.deps.social.markSeen(me, now, this.tokenHash));
        this.reply(frame.id, 'notificationsSeen', { unseen: 0 });
        return;
      case 'respondRequest':
        this.deps.publish(
          await this.deps.social.respondRequest(me, frame.notificationId, frame.accept, now, this.tokenHash),
        );
        this.reply(frame.id, 'respondRequest', { accepted: frame.accept });
        return;
      default:
        assertNever(frame);
    }
  }

  /** Only the two participants may touch a chat. */
  private ownChat(chatId: string): void {
    const [a, b] = chatId.split('_');
    if (a !== this.userId && b !== this.userId) throw new FrameError('not_found', 'Chat not found');
  }

  /** The socket closed. */
  async onClose(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.clearTimer();
    this.unsubscribe?.();
    this.deps.presence.unwatch(this, this.watched);
    for (const to of this.typingTo ?? NONE)
      this.deps.hub.publish(to, { t: 'typing', from: this.userId, typing: false });
    this.deps.onClosed(this);
    if (this.presenceCounted) await this.deps.presence.disconnect(this.userId).catch(() => {});
  }
}

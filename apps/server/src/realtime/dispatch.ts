/**
 * A socket's frames after its welcome, from the frame to its answer: writes paced per
 * user, sends pipelined to their commit, the request's handler run (handlers.ts), what it
 * committed published, then its result (or why it was refused) sent back. Publishing is
 * done here, for every handler, so none can forget it; the socket sees its own updates
 * before the result, as its client expects. The whole path of a send: docs/message-path.md.
 *
 * Functions of the socket (the Connection) rather than an object of their own: an idle
 * socket carries nothing for them.
 */
import type { DownFrame, RequestFrame, UpFrame } from '@app/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { RealtimeDeps } from './deps.ts';
import { FrameError, handle, refusalOf, type SocketSession, WRITE_KINDS } from './handlers.ts';

/** Frames paced per user: every write, and typing (it reaches another user). */
const PACED_FRAMES: ReadonlySet<UpFrame['t']> = new Set([...WRITE_KINDS, 'typing']);

/** Sends one socket may have waiting for their commit before it reads on (see pipeline). */
const MAX_SENDING = 32;

/** What the dispatch needs of the socket it answers (the Connection). */
export interface Requester extends SocketSession {
  readonly deps: RealtimeDeps;
  /** Closing or closed: nothing more is handled or sent. */
  readonly gone: boolean;
  readonly log: FastifyBaseLogger;
  send(frame: DownFrame): void;
  close(code: number, reason: string): void;
  /** The user started or stopped typing to `to`. */
  setTyping(to: string, typing: boolean): Promise<void>;
  /** A message went to `to`: this socket has stopped typing to them. */
  sentTo(to: string): void;
  /** Sends of this socket waiting for their commit (see pipeline); null when none. */
  sending: Set<Promise<void>> | null;
}

/** A frame after the welcome: paced if it writes, then answered. */
export async function dispatch(s: Requester, frame: Exclude<UpFrame, { t: 'hello' }>): Promise<void> {
  const id = 'id' in frame ? frame.id : null;
  try {
    // Writes and typing are paced per user, whichever of their sockets and processes they
    // come through (the frame limit is per socket). Typing over the pace is dropped.
    if (PACED_FRAMES.has(frame.t) && !(await s.deps.writePace.take(s.userId))) {
      s.deps.metrics.rateLimited.inc({ scope: 'user' });
      if (frame.t === 'typing') return;
      throw new FrameError('rate_limited', 'Too many messages. Please slow down.');
    }
    // Closed while waiting: nothing more from this socket.
    if (s.gone) return;
    if (frame.t === 'ping') s.send({ t: 'pong' });
    else if (frame.t === 'typing') await s.setTyping(frame.to, frame.typing);
    else if (frame.t === 'send') await pipeline(s, frame);
    else {
      // Anything else waits for the sends before it (an edit for the message it edits).
      if (s.sending) await Promise.all(s.sending);
      await answer(s, frame);
    }
  } catch (e) {
    refuse(s, id, frame.t, e);
  }
}

/**
 * A send is queued for its commit, and the next frame is read without waiting for it:
 * a socket that writes several messages has them committed together. The commit keeps
 * each chat's sends in order (group-commit.ts); results come back by id, perhaps out of
 * order across chats. At most MAX_SENDING wait at once; then the socket waits for them.
 */
async function pipeline(s: Requester, frame: Extract<RequestFrame, { t: 'send' }>): Promise<void> {
  if (s.sending && s.sending.size >= MAX_SENDING) await Promise.race(s.sending);
  const done = answer(s, frame).catch((e: unknown) => refuse(s, frame.id, frame.t, e));
  s.sending ??= new Set();
  const sending = s.sending;
  sending.add(done);
  void done.then(() => {
    sending.delete(done);
    if (sending.size === 0 && s.sending === sending) s.sending = null;
  });
}

/** Runs the request's handler, publishes what it committed, then sends its result. */
async function answer(s: Requester, frame: RequestFrame): Promise<void> {
  const started = frame.t === 'send' ? performance.now() : 0;
  const { updates, result } = await handle(s, frame, Date.now());
  if (updates.length > 0) s.deps.publish(updates);
  // The message has gone out (its update first): typing to its recipient has stopped.
  if (frame.t === 'send') s.sentTo(frame.to);
  const data = result();
  if (!s.gone) s.send({ t: 'result', id: frame.id, data });
  if (frame.t === 'send') {
    const { metrics } = s.deps;
    metrics.sendSeconds.observe((performance.now() - started) / 1000);
    if ('message' in data) metrics.messagesStored.inc();
  }
}

/** A request failed: the client is told why, or the socket closes when its account or session is gone. */
function refuse(s: Requester, id: string | null, t: UpFrame['t'], e: unknown): void {
  const r = refusalOf(e);
  if ('close' in r) s.close(r.close, r.reason);
  else {
    if (r.code === 'internal') s.log.error({ err: e, t }, 'realtime request failed');
    s.send({ t: 'error', id, code: r.code, message: r.message });
  }
}

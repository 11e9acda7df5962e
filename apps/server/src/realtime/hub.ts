/**
 * Fan-out between server processes: frames to a user's open sockets, global frames to
 * every socket, and control messages every process acts on (close a blocked user's
 * sockets, a PIN grant, a presence change). In one process an EventEmitter does it;
 * with REDIS_URL the same interface is backed by Redis pub/sub (redis-hub.ts).
 *
 * Delivery is at most once, like Redis pub/sub: a socket that sees a gap in its update
 * log's seq fills it from the database, and after a Redis reconnection `onResync`
 * listeners catch up every socket.
 */
import { EventEmitter } from 'node:events';
import type { DownFrame, Presence } from '@app/protocol';

export type ControlMessage =
  /** Close every socket of a user (blocked, deleted, password changed), except one session's. */
  | { kind: 'closeUser'; userId: string; code: number; keep?: string }
  /** Close the sockets of one session (signed out). */
  | { kind: 'closeSession'; tokenHash: string; code: number }
  /** A session verified its PIN: its sockets may show locked chats until `until`. */
  | { kind: 'grant'; tokenHash: string; until: number }
  /** A user's presence changed (watchers apply their own privacy view). */
  | { kind: 'presence'; presence: Presence }
  /** A user's privacy settings changed: watchers of their presence ask again. */
  | { kind: 'presenceRefresh'; userId: string };

export interface Hub {
  publish(userId: string, frame: DownFrame): void;
  /** Resolves once frames published from now on, by any process, reach `listener`. */
  subscribe(userId: string, listener: (frame: DownFrame) => void): Promise<() => void>;
  /** A frame for every signed-in socket (admin broadcasts, settings, verified badges). */
  publishAll(frame: DownFrame): void;
  subscribeAll(listener: (frame: DownFrame) => void): () => void;
  publishControl(msg: ControlMessage): void;
  subscribeControl(listener: (msg: ControlMessage) => void): () => void;
  /** Frames may have been lost (the Redis connection dropped): sockets should catch up. */
  onResync(listener: () => void): () => void;
  close(): Promise<void>;
}

/** Emitter events of global frames and control messages (user ids are never empty). */
export const ALL = '';
export const CONTROL = '\0control';
export const RESYNC = '\0resync';

/** The in-process part both hubs share: an emitter with on/off helpers. */
export function localEmitter() {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const on = <T>(event: string, listener: (x: T) => void): (() => void) => {
    emitter.on(event, listener);
    return () => emitter.off(event, listener);
  };
  return { emitter, on };
}

export function createLocalHub(): Hub {
  const { emitter, on } = localEmitter();
  return {
    publish(userId, frame) {
      emitter.emit(userId, frame);
    },
    async subscribe(userId, listener) {
      return on(userId, listener);
    },
    publishAll(frame) {
      emitter.emit(ALL, frame);
    },
    subscribeAll: (listener) => on(ALL, listener),
    publishControl(msg) {
      emitter.emit(CONTROL, msg);
    },
    subscribeControl: (listener) => on(CONTROL, listener),
    onResync: (listener) => on(RESYNC, listener),
    async close() {
      emitter.removeAllListeners();
    },
  };
}

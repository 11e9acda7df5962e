/**
 * Fan-out of frames to a user's open sockets, and of global frames to every socket. In
 * one process an EventEmitter does it; with several processes the same interface is
 * backed by Redis pub/sub.
 */
import { EventEmitter } from 'node:events';
import type { DownFrame } from '@app/protocol';

export interface Hub {
  publish(userId: string, frame: DownFrame): void;
  subscribe(userId: string, listener: (frame: DownFrame) => void): () => void;
  /** A frame for every signed-in socket (admin broadcasts, settings, verified badges). */
  publishAll(frame: DownFrame): void;
  subscribeAll(listener: (frame: DownFrame) => void): () => void;
  close(): Promise<void>;
}

/** The emitter event of global frames (user ids are never empty). */
const ALL = '';

export function createLocalHub(): Hub {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    publish(userId, frame) {
      emitter.emit(userId, frame);
    },
    subscribe(userId, listener) {
      emitter.on(userId, listener);
      return () => emitter.off(userId, listener);
    },
    publishAll(frame) {
      emitter.emit(ALL, frame);
    },
    subscribeAll(listener) {
      emitter.on(ALL, listener);
      return () => emitter.off(ALL, listener);
    },
    async close() {
      emitter.removeAllListeners();
    },
  };
}

/**
 * Fan-out of frames to a user's open sockets. In one process an EventEmitter does it;
 * with several processes the same interface is backed by Redis pub/sub.
 */
import { EventEmitter } from 'node:events';
import type { DownFrame } from '@app/protocol';

export interface Hub {
  publish(userId: string, frame: DownFrame): void;
  subscribe(userId: string, listener: (frame: DownFrame) => void): () => void;
  close(): Promise<void>;
}

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
    async close() {
      emitter.removeAllListeners();
    },
  };
}

/**
 * SQLite's WAL is copied back into the database file by a checkpoint. Done by the
 * connection that commits (the default), a checkpoint stalls the message path for
 * milliseconds. Instead, a worker thread with its own connection runs a passive
 * checkpoint every CHECKPOINT_EVERY_MS (often, so the WAL and its index stay short): it
 * never blocks the writer, runs on the other core, and the writer rewinds the WAL by
 * itself once a checkpoint has caught up.
 */
import { Worker } from 'node:worker_threads';

export const CHECKPOINT_EVERY_MS = 50;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file);
db.pragma('busy_timeout = 1000');
let stopped = false;
function tick() {
  if (stopped) return;
  // A checkpoint that fails (the file busy) is tried at the next tick; the WAL grows meanwhile.
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
  setTimeout(tick, workerData.everyMs);
}
setTimeout(tick, workerData.everyMs);
parentPort.on('message', () => {
  stopped = true;
  // The server's own connection checkpoints at close too.
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
  db.close();
  parentPort.postMessage('closed');
});
`;

export interface Checkpointer {
  close(): Promise<void>;
}

export function startCheckpointer(file: string, driverPath: string): Checkpointer {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file, driver: driverPath, everyMs: CHECKPOINT_EVERY_MS },
  });
  worker.unref();
  // A worker that fails leaves checkpoints to SQLite's own (every 1000 pages): slower, not wrong.
  worker.on('error', () => {});
  return {
    close: () =>
      new Promise<void>((resolve) => {
        const done = () => {
          void worker.terminate().finally(resolve);
        };
        const timer = setTimeout(done, 2000);
        worker.once('message', () => {
          clearTimeout(timer);
          done();
        });
        worker.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        worker.postMessage('stop');
      }),
  };
}

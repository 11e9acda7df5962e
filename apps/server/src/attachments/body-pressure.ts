/**
 * Streamed bodies and V8's garbage collection. Node's HTTP parser copies every piece of a
 * request body into a Buffer of its own (a file read is the same), which only a collection
 * frees, and V8 starts a full one only once 64 MB of them are outstanding: a 1 GB upload
 * grew the server by that much, and the full collections of its heap cost about a fifth of
 * the upload's time (docs/attachments.md "Speed and memory"). The pieces die young, so a
 * minor collection (a scavenge, about a millisecond) every STEP bytes streamed frees them
 * first. It needs --expose-gc, which the server runs with (node-flags.ts); without it this
 * does nothing.
 */
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const STEP = 16 * 1024 * 1024;

const gc = (globalThis as { gc?: (options: { type: 'minor' }) => void }).gc;
let since = 0;

/** `n` more bytes of a body went through. */
export function streamed(n: number): void {
  if (!gc) return;
  since += n;
  if (since < STEP) return;
  since = 0;
  gc({ type: 'minor' });
}

/**
 * `source` counted as it streams through (its error, a cut connection, ends the result
 * with that error too), for a body that is read later or elsewhere.
 */
export function counted(source: Readable): Readable {
  const through = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      streamed(chunk.length);
      done(null, chunk);
    },
  });
  pipeline(source, through).catch(() => {});
  return through;
}

/**
 * Compresses answers made at request time (the API's JSON, error bodies) when they are
 * MIN_COMPRESS_BYTES or more and the request accepts br or gzip. The web app's files are
 * streams compressed at build time (web-app.ts) and pass through untouched.
 *
 * node:zlib rather than @fastify/compress: answers here are whole strings or buffers, so an
 * onSend hook of a few lines does it, with the same negotiation the tests pin down and no
 * stream plumbing or extra dependencies.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import {
  type Coding,
  isCompressibleType,
  MIN_COMPRESS_BYTES,
  negotiateEncoding,
  varyOnAcceptEncoding,
} from './content-encoding.ts';

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Fast settings: this runs per answer (brotli 5 is near its best ratio at a fraction of 11's cost). */
function compress(body: Buffer, coding: Coding): Promise<Buffer> {
  if (coding === 'gzip') return gzipAsync(body, { level: 6 });
  return brotliAsync(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 5,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    },
  });
}

export function registerResponseCompression(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply, payload) => {
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    if (reply.hasHeader('content-encoding')) return payload;
    const type = reply.getHeader('content-type');
    if (typeof type !== 'string' || !isCompressibleType(type)) return payload;
    // A larger answer at this URL would be compressed: caches must key on the request's codings.
    reply.header('vary', varyOnAcceptEncoding(reply.getHeader('vary')));
    const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
    if (body.length < MIN_COMPRESS_BYTES) return payload;
    const coding = negotiateEncoding(req.headers['accept-encoding']);
    if (!coding) return payload;
    const compressed = await compress(body, coding);
    if (compressed.length >= body.length) return payload;
    reply.header('content-encoding', coding);
    reply.header('content-length', compressed.length);
    return compressed;
  });
}

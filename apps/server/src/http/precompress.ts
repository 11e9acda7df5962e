/**
 * Build time (apps/web's Vite build calls it, @app/server/precompress): writes `file.br` and
 * `file.gz` beside every compressible file of the built web app, which the server sends
 * to browsers that accept them (web-app.ts). Maximum quality: it runs once per build.
 *
 * Each variant is kept only when it is smaller than what it replaces (gzip than the file,
 * brotli than gzip), so the three representations always differ in size, and with it in
 * their ETags (which @fastify/send makes of size and modification time).
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { COMPRESSIBLE_EXTENSIONS, MIN_COMPRESS_BYTES } from './content-encoding.ts';

export interface PrecompressedFile {
  /** Path relative to the directory, with '/' separators. */
  file: string;
  raw: number;
  gzip: number;
  br: number | null;
}

/** Writes the .br and .gz variants of every compressible file under `dir`; what it made. */
export function precompressDir(dir: string): PrecompressedFile[] {
  const made: PrecompressedFile[] = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !COMPRESSIBLE_EXTENSIONS.includes(path.extname(entry.name).toLowerCase())) continue;
    const file = path.join(entry.parentPath, entry.name);
    const raw = readFileSync(file);
    // A variant left by an earlier build of a file that no longer shrinks must not be served.
    rmSync(`${file}.gz`, { force: true });
    rmSync(`${file}.br`, { force: true });
    if (raw.length < MIN_COMPRESS_BYTES) continue;
    const gz = gzipSync(raw, { level: 9 });
    if (gz.length >= raw.length) continue;
    writeFileSync(`${file}.gz`, gz);
    const br = brotliCompressSync(raw, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      },
    });
    const keepBr = br.length < gz.length;
    if (keepBr) writeFileSync(`${file}.br`, br);
    made.push({
      file: path.relative(dir, file).split(path.sep).join('/'),
      raw: raw.length,
      gzip: gz.length,
      br: keepBr ? br.length : null,
    });
  }
  return made;
}

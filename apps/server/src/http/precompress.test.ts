import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { precompressDir } from './precompress.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'parley-precompress-'));
  mkdirSync(path.join(dir, 'assets'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const text = (n: number) => 'export const greeting = "hello, world";\n'.repeat(Math.ceil(n / 40)).slice(0, n);
const put = (name: string, body: string | Buffer) => writeFileSync(path.join(dir, name), body);
const has = (name: string) => existsSync(path.join(dir, name));

describe('precompressDir', () => {
  it('writes .br and .gz that decode to the file, brotli smaller than gzip smaller than the file', () => {
    put('assets/app-abc.js', text(20_000));
    put('index.html', `<!doctype html><title>x</title>${text(3000)}`);
    const made = precompressDir(dir);
    expect(made.map((m) => m.file).sort()).toEqual(['assets/app-abc.js', 'index.html']);
    for (const m of made) {
      const raw = readFileSync(path.join(dir, m.file));
      const br = readFileSync(path.join(dir, `${m.file}.br`));
      const gz = readFileSync(path.join(dir, `${m.file}.gz`));
      expect(brotliDecompressSync(br).equals(raw)).toBe(true);
      expect(gunzipSync(gz).equals(raw)).toBe(true);
      expect([m.raw, m.gzip, m.br]).toEqual([raw.length, gz.length, br.length]);
      expect(br.length).toBeLessThan(gz.length);
      expect(gz.length).toBeLessThan(raw.length);
    }
  });

  it('skips small files, files that do not shrink and types not worth compressing', () => {
    put('assets/tiny.js', text(1000));
    put('assets/noise.txt', randomBytes(8000)); // random bytes: gzip only adds framing
    put('assets/photo.png', text(20_000)); // compressible bytes, but not a type we compress
    put('favicon.svg', text(5000));
    expect(precompressDir(dir).map((m) => m.file)).toEqual(['favicon.svg']);
    for (const name of ['assets/tiny.js', 'assets/noise.txt', 'assets/photo.png']) {
      expect(has(`${name}.gz`), name).toBe(false);
      expect(has(`${name}.br`), name).toBe(false);
    }
  });

  it('removes variants an earlier build left for a file that no longer gets them', () => {
    put('assets/was-big.css', 'a{}');
    put('assets/was-big.css.gz', 'stale');
    put('assets/was-big.css.br', 'stale');
    precompressDir(dir);
    expect(has('assets/was-big.css.gz')).toBe(false);
    expect(has('assets/was-big.css.br')).toBe(false);
    expect(precompressDir(dir)).toEqual([]);
  });
});

/**
 * Compressed responses from a real server, read with raw HTTP (fetch would decode them):
 * the web app's precompressed files and the API's answers compressed as they go.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { API } from '@app/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, startTestServer, type TestServer } from '../test/harness.ts';
import { precompressDir } from './precompress.ts';

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function raw(t: TestServer, p: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${t.url}${p}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The body as it was before the response's Content-Encoding. */
function decoded(res: RawResponse): Buffer {
  const coding = res.headers['content-encoding'];
  if (coding === 'br') return brotliDecompressSync(res.body);
  if (coding === 'gzip') return gunzipSync(res.body);
  expect(coding).toBeUndefined();
  return res.body;
}

const BROWSER = 'gzip, deflate, br, zstd';
const APP_JS = '/assets/app-Ab12Cd34.js';
const TINY_JS = '/assets/tiny-Ef56Gh78.js';
const IMMUTABLE = 'public, max-age=31536000, immutable';

let dist: string;
let t: TestServer;
const file = (p: string) => readFileSync(path.join(dist, p));

beforeAll(async () => {
  dist = mkdtempSync(path.join(tmpdir(), 'parley-dist-'));
  mkdirSync(path.join(dist, 'assets'));
  const script = Array.from({ length: 600 }, (_, i) => `export const value${i} = "item number ${i}";`).join('\n');
  writeFileSync(path.join(dist, APP_JS), script);
  writeFileSync(path.join(dist, TINY_JS), 'export const tiny = 1;\n');
  const filler = '<meta name="x" content="a head long enough to be worth compressing">\n'.repeat(30);
  writeFileSync(path.join(dist, 'index.html'), `<!doctype html><html><head>${filler}</head><body></body></html>`);
  precompressDir(dist);
  t = await startTestServer({ env: { WEB_DIST: dist } });
});
afterAll(async () => {
  await t?.close();
  rmSync(dist, { recursive: true, force: true });
});

describe('the web app’s files', () => {
  const cases: [string, string | undefined, string | undefined][] = [
    ['a browser (br offered)', BROWSER, 'br'],
    ['br alone', 'br', 'br'],
    ['gzip alone', 'gzip', 'gzip'],
    ['gzip weighted above br', 'br;q=0.5, gzip', 'gzip'],
    ['no Accept-Encoding', undefined, undefined],
    ['identity only', 'identity', undefined],
    ['br and gzip refused', 'br;q=0, gzip;q=0', undefined],
  ];
  for (const [label, accept, coding] of cases) {
    it(`${label} → ${coding ?? 'identity'}, decoding to the file, cache headers kept`, async () => {
      const res = await raw(t, APP_JS, accept === undefined ? {} : { 'accept-encoding': accept });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe(coding);
      expect(res.headers['content-type']).toMatch(/^(text|application)\/javascript/);
      expect(Number(res.headers['content-length'])).toBe(res.body.length);
      expect(decoded(res).equals(file(APP_JS))).toBe(true);
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      expect(res.headers['cache-control']).toBe(IMMUTABLE);
      if (coding) expect(res.body.length).toBeLessThan(file(APP_JS).length / 3);
    });
  }

  it('each coding has its own ETag, and a revalidation with it answers 304', async () => {
    const etags = new Map<string, string>();
    for (const accept of ['br', 'gzip', 'identity']) {
      const res = await raw(t, APP_JS, { 'accept-encoding': accept });
      const etag = res.headers.etag;
      expect(etag).toBeTruthy();
      etags.set(accept, etag as string);
      const again = await raw(t, APP_JS, { 'accept-encoding': accept, 'if-none-match': etag as string });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
    }
    expect(new Set(etags.values()).size).toBe(3);
    // The brotli ETag does not validate the gzip representation.
    const other = await raw(t, APP_JS, { 'accept-encoding': 'gzip', 'if-none-match': etags.get('br') as string });
    expect(other.status).toBe(200);
    expect(other.headers['content-encoding']).toBe('gzip');
  });

  it('HEAD: the headers of the GET with the same codings, no body', async () => {
    for (const accept of ['br', 'gzip', 'identity']) {
      const get = await raw(t, APP_JS, { 'accept-encoding': accept });
      const head = await raw(t, APP_JS, { 'accept-encoding': accept }, 'HEAD');
      expect(head.status).toBe(200);
      expect(head.body.length).toBe(0);
      for (const h of ['content-encoding', 'content-length', 'content-type', 'etag', 'vary', 'cache-control']) {
        expect(head.headers[h], `${accept} ${h}`).toEqual(get.headers[h]);
      }
    }
  });

  it('a Range request gets those bytes of the representation its headers name', async () => {
    for (const accept of [BROWSER, 'identity']) {
      const full = await raw(t, APP_JS, { 'accept-encoding': accept });
      const part = await raw(t, APP_JS, { 'accept-encoding': accept, range: 'bytes=10-109' });
      expect(part.status).toBe(206);
      expect(part.headers['content-encoding']).toBe(full.headers['content-encoding']);
      expect(part.headers['content-range']).toBe(`bytes 10-109/${full.body.length}`);
      expect(part.body.equals(full.body.subarray(10, 110))).toBe(true);
    }
  });

  it('a file under the threshold goes as it is, still varying on Accept-Encoding', async () => {
    const res = await raw(t, TINY_JS, { 'accept-encoding': BROWSER });
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body.equals(file(TINY_JS))).toBe(true);
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(res.headers['cache-control']).toBe(IMMUTABLE);
  });

  it('the HTML shell of any app path is compressed, and revalidated (no-cache)', async () => {
    for (const p of ['/', '/welcome', '/chat/123']) {
      const res = await raw(t, p, { 'accept-encoding': BROWSER });
      expect(res.status, p).toBe(200);
      expect(res.headers['content-encoding'], p).toBe('br');
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(decoded(res).equals(file('index.html')), p).toBe(true);
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      expect(res.headers['cache-control']).toBe('no-cache');
    }
  });

  it('the variants are not served under their own names', async () => {
    for (const p of [`${APP_JS}.br`, `${APP_JS}.gz`]) {
      const res = await raw(t, p, { 'accept-encoding': BROWSER });
      expect(res.status, p).toBe(404);
    }
    // Outside /assets/ an unknown path is the app's: the shell, not the brotli bytes.
    const shell = await raw(t, '/index.html.br', { 'accept-encoding': 'identity' });
    expect(shell.headers['content-type']).toMatch(/^text\/html/);
    expect(shell.body.equals(file('index.html'))).toBe(true);
  });
});

describe('API answers', () => {
  it('an answer of 1 KB or more is compressed as the request allows; a smaller one is not', async () => {
    const admin = await signUp(t, { email: 'admin@example.com' });
    expect(await t.server.ctx.store.setEmailVerified(admin.user.id, admin.input.email)).toBe(true);
    for (let i = 0; i < 4; i++) await signUp(t);
    const cookie = `sid=${admin.client.cookie}`;
    const list = `${API.adminUsers}?query=`;
    const plain = await raw(t, list, { cookie });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThanOrEqual(1024);
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    const users = JSON.parse(plain.body.toString()).users;
    for (const [accept, coding] of [
      [BROWSER, 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip;q=0', undefined],
    ] as const) {
      const res = await raw(t, list, { cookie, 'accept-encoding': accept });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding'], accept).toBe(coding);
      expect(Number(res.headers['content-length'])).toBe(res.body.length);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      expect(JSON.parse(decoded(res).toString()).users).toEqual(users);
    }

    const small = await raw(t, API.publicSettings, { 'accept-encoding': BROWSER });
    expect(small.status).toBe(200);
    expect(small.body.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers.vary).toMatch(/accept-encoding/i);
    expect(JSON.parse(small.body.toString())).toHaveProperty('kdf');
  });
});

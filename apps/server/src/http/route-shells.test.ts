/**
 * The HTML shell a page is sent: its screen's own (routes/<first segment>.html, the build's
 * index.html plus modulepreload links for that screen) when the build made one, else
 * index.html; precompressed like every other file.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../test/harness.ts';
import { precompressDir } from './precompress.ts';

let dist: string;
let t: TestServer;

const shell = (name: string) =>
  `<!doctype html><html><head><title>${name}</title>${'<meta name="x" content="long enough to compress">'.repeat(40)}</head><body></body></html>`;

beforeAll(async () => {
  dist = mkdtempSync(path.join(tmpdir(), 'parley-shells-'));
  mkdirSync(path.join(dist, 'routes'));
  writeFileSync(path.join(dist, 'index.html'), shell('index'));
  writeFileSync(path.join(dist, 'routes/signin.html'), shell('signin'));
  writeFileSync(path.join(dist, 'routes/chat.html'), shell('chat'));
  precompressDir(dist);
  t = await startTestServer({ env: { WEB_DIST: dist } });
});
afterAll(async () => {
  await t?.close();
  rmSync(dist, { recursive: true, force: true });
});

/** The <title> of the page served at `p` (fetch decodes the br it is sent). */
async function titleAt(p: string): Promise<{ title: string | undefined; res: Response }> {
  const res = await fetch(`${t.url}${p}`, { headers: { 'accept-encoding': 'br' } });
  const text = await res.text();
  return { title: /<title>([^<]*)<\/title>/.exec(text)?.[1], res };
}

describe('page shells', () => {
  const cases: [string, string][] = [
    ['/signin', 'signin'],
    ['/signin?next=%2Fhome', 'signin'],
    ['/chat/0b7c1c1e-2f6f-4a53-9a51-2c1c6f1b0a11', 'chat'],
    ['/', 'index'],
    ['/welcome', 'index'],
    ['/signin-later', 'index'],
    ['/SIGNIN', 'index'],
    ['/nothing/here', 'index'],
  ];
  for (const [url, expected] of cases) {
    it(`${url} → ${expected}`, async () => {
      const { title, res } = await titleAt(url);
      expect(res.status).toBe(200);
      expect(title).toBe(expected);
      expect(res.headers.get('content-encoding')).toBe('br');
      expect(res.headers.get('cache-control')).toBe('no-cache');
    });
  }

  it('an unknown API path is still the API’s 404, not a shell', async () => {
    const res = await fetch(`${t.url}/api/nope`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/json');
  });

  it('the shell sent is the file the build wrote', async () => {
    const res = await fetch(`${t.url}/signin`);
    expect(await res.text()).toBe(readFileSync(path.join(dist, 'routes/signin.html'), 'utf8'));
  });
});

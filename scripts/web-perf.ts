/**
 * `npm run test:perf` (part of `npm test`): the web performance budget and Lighthouse.
 *
 * Starts the built app on its own server (embedded SQLite, temporary data dir), then:
 *  1. the first screen's JavaScript: every script a fresh visitor's browser loads for /
 *     (the splash, then /welcome) and for /signin: raw, gzipped (-9, each script), and
 *     as sent: the server's brotli (its Content-Length for a request accepting only br)
 *     and what Chromium received; fails when a screen needs more than 150 KB gzipped;
 *  2. sign-up and sign-in through the forms, timed from submit to /home with the password
 *     KDF at the server's real cost (informative); then the chat screen's JavaScript: every
 *     script a signed-in tab loads to open a chat and send a sealed message (informative);
 *  3. Lighthouse (npm `lighthouse` driving Debian Chromium) on /signin and, signed in,
 *     on /home; prints the four category scores (informative: machines here are shared).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { spawnServer } from '@app/server/spawn';
import { type APIRequestContext, chromium, type Page } from '@playwright/test';

const ROOT = path.resolve(import.meta.dirname, '..');
const BUDGET_KB = 150;
const CHROME = process.env.CHROME_PATH ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

if (!existsSync(path.join(ROOT, 'apps/web/dist/index.html'))) {
  const built = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'parley-perf-'));
const server = await spawnServer({
  env: {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    DATABASE_URL: '',
    REDIS_URL: '',
    SMTP_URL: '',
  },
});
const base = server.url;
const stop = async () => {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
};

interface Script {
  /** Decoded size, and gzipped at level 9 (the budget's measure: it ignores the server's threshold). */
  raw: number;
  gzip: number;
  /** The body's bytes as the browser received them, and their Content-Encoding. */
  received: number;
  coding: string;
}

/** Records every script `page` loads, by URL. */
function recordScripts(page: Page): Map<string, Script> {
  const scripts = new Map<string, Script>();
  page.on('response', async (res) => {
    if (res.request().resourceType() !== 'script') return;
    const body = await res.body().catch(() => null);
    const sizes = await res
      .request()
      .sizes()
      .catch(() => null);
    if (!body || !sizes) return;
    const coding = res.headers()['content-encoding'] ?? 'identity';
    const gzip = gzipSync(body, { level: 9 }).length;
    scripts.set(res.url(), { raw: body.length, gzip, received: sizes.responseBodySize, coding });
  });
  return scripts;
}

interface Bytes {
  raw: number;
  gzip: number;
  br: number;
  received: number;
  codings: Set<string>;
}

/** The scripts' total bytes: raw, gzipped, as the server sends them to a request accepting only br, as received. */
async function transferred(request: APIRequestContext, scripts: Map<string, Script>): Promise<Bytes> {
  const total: Bytes = { raw: 0, gzip: 0, br: 0, received: 0, codings: new Set() };
  for (const [url, script] of scripts) {
    const res = await request.head(url, { headers: { 'accept-encoding': 'br' } });
    const br = Number(res.headers()['content-length']);
    if (!res.ok() || !Number.isFinite(br)) throw new Error(`HEAD ${url} (br): ${res.status()}`);
    total.raw += script.raw;
    total.gzip += script.gzip;
    total.br += br;
    total.received += script.received;
    total.codings.add(script.coding);
  }
  return total;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1).padStart(6)} KB`;
const describeBytes = (b: Bytes) =>
  `${kb(b.raw)} raw  ${kb(b.gzip)} gzip  ${kb(b.br)} br as sent  (Chromium got ${kb(b.received).trim()}: ${[...b.codings].join(', ')})`;

/** Signs `user` up through the form (the agreement ticked); the time from submit to /home, in ms. */
async function signUpThroughForm(
  page: Page,
  user: Record<'name' | 'phone' | 'age' | 'username' | 'email' | 'password', string>,
): Promise<number> {
  await page.goto(`${base}/signup`);
  for (const field of ['name', 'phone', 'age', 'username', 'email', 'password'] as const) {
    await page.locator(`#signup-${field}`).fill(user[field]);
  }
  await page.locator('#signup-agree').click();
  const started = performance.now();
  await page.locator('button[type=submit]').click();
  await page.waitForURL(/\/home$/, { timeout: 30_000 });
  return performance.now() - started;
}

let failed = false;
try {
  // ---- 1. the first screen's JavaScript ---------------------------------------------------
  const browser = await chromium.launch({ executablePath: CHROME, args: FLAGS.slice(1) });
  const screens: [string, string, RegExp][] = [
    ['first visit (/ then /welcome)', '/', /\/welcome$/],
    ['/signin', '/signin', /\/signin$/],
  ];
  console.log(`First-screen JavaScript (budget ${BUDGET_KB} KB gzipped a screen; browsers are sent br):`);
  for (const [name, url, settled] of screens) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const scripts = recordScripts(page);
    await page.goto(base + url);
    await page.waitForURL(settled, { timeout: 15_000 });
    await page.waitForLoadState('networkidle');
    const total = await transferred(context.request, scripts);
    const ok = total.gzip / 1024 <= BUDGET_KB;
    failed ||= !ok;
    console.log(`  ${name.padEnd(30)} ${describeBytes(total)} in ${scripts.size} files  ${ok ? 'ok' : 'OVER BUDGET'}`);
    await context.close();
  }

  // ---- 2. sign-up and sign-in in the browser, the password KDF included --------------------
  // The server runs with its default scrypt cost (KDF_COST 17 unless the environment says).
  const user = {
    name: 'Perf Person',
    phone: '5551234567',
    age: '30',
    username: 'perf_person',
    email: 'perf@example.com',
    password: 'perf-password',
  };
  const signUpContext = await browser.newContext();
  const signUpPage = await signUpContext.newPage();
  const signUpMs = await signUpThroughForm(signUpPage, user);
  const sid = (await signUpContext.cookies()).find((c) => c.name === 'sid');
  if (!sid) throw new Error('sign-up left no session cookie');
  const cookie = `sid=${sid.value}`;
  const signInContext = await browser.newContext();
  const signInPage = await signInContext.newPage();
  await signInPage.goto(`${base}/signin`);
  await signInPage.locator('#signin-login').fill(user.email);
  await signInPage.locator('#signin-password').fill(user.password);
  const started = performance.now();
  await signInPage.locator('button[type=submit]').click();
  await signInPage.waitForURL(/\/home$/, { timeout: 30_000 });
  const signInMs = performance.now() - started;
  const kdf = (await (await fetch(`${base}/api/settings`)).json()) as { kdf: { N: number } };
  console.log(
    `\nSign-up ${Math.round(signUpMs)} ms, sign-in ${Math.round(signInMs)} ms (submit to /home, scrypt N=2^${Math.log2(kdf.kdf.N)} in a Web Worker included)`,
  );

  // The chat screen: a signed-in tab opens a chat and sends a sealed message (end-to-end encryption loaded).
  const peerContext = await browser.newContext();
  const peerPage = await peerContext.newPage();
  await signUpThroughForm(peerPage, { ...user, username: 'perf_peer', email: 'perf-peer@example.com' });
  const peer = (await (await peerPage.request.get(`${base}/api/session`)).json()) as { user: { id: string } };
  const chatContext = await browser.newContext({ storageState: await signUpContext.storageState() });
  const chatPage = await chatContext.newPage();
  const chatScripts = recordScripts(chatPage);
  await chatPage.goto(`${base}/chat/${peer.user.id}`);
  const input = chatPage.getByRole('textbox', { name: 'Message', exact: true });
  await input.fill('hello from the budget script');
  await input.press('Enter');
  await chatPage.locator('[data-message-id]').first().waitFor();
  await chatPage.waitForLoadState('networkidle');
  console.log(
    `Chat screen JavaScript (signed in, a chat opened and a message sealed; informative): ${describeBytes(await transferred(chatContext.request, chatScripts))} in ${chatScripts.size} files`,
  );
  await browser.close();

  // ---- 3. Lighthouse -----------------------------------------------------------------------
  const lighthouse = path.join(ROOT, 'node_modules/lighthouse/cli/index.js');
  const audit = (url: string, headers?: Record<string, string>) =>
    new Promise<Record<string, number | null>>((resolve, reject) => {
      const args = [
        lighthouse,
        url,
        '--output=json',
        '--quiet',
        '--only-categories=performance,accessibility,best-practices,seo',
        `--chrome-flags=${FLAGS.join(' ')}`,
        '--form-factor=desktop',
        '--screenEmulation.disabled',
        '--throttling-method=provided',
        ...(headers ? [`--extra-headers=${JSON.stringify(headers)}`] : []),
      ];
      const child = spawn(process.execPath, args, {
        env: { ...process.env, CHROME_PATH: CHROME },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
      });
      child.on('exit', (code) => {
        if (code !== 0) return reject(new Error(`lighthouse exited ${code}`));
        const report = JSON.parse(out) as { categories: Record<string, { score: number | null }> };
        resolve(Object.fromEntries(Object.entries(report.categories).map(([k, v]) => [k, v.score])));
      });
    });
  console.log('\nLighthouse (desktop, no throttling; informative):');
  for (const [name, url, headers] of [
    ['/signin', `${base}/signin`, undefined],
    ['/home (signed in)', `${base}/home`, { Cookie: cookie }],
  ] as const) {
    try {
      const scores = await audit(url, headers);
      console.log(
        `  ${name.padEnd(20)} ${Object.entries(scores)
          .map(([k, v]) => `${k} ${v === null ? 'n/a' : Math.round(v * 100)}`)
          .join('  ')}`,
      );
    } catch (err) {
      console.log(`  ${name.padEnd(20)} could not run: ${err instanceof Error ? err.message : err}`);
    }
  }
} finally {
  await stop();
}
if (failed) {
  console.error(`\nA screen needs more than ${BUDGET_KB} KB of gzipped JavaScript: split it by route.`);
  process.exit(1);
}

/**
 * `npm run test:perf` (part of `npm test`): the web performance budget and Lighthouse.
 *
 * Starts the built app on its own server (embedded SQLite, temporary data dir), then:
 *  1. the first screen's JavaScript: every script a fresh visitor's browser loads for /
 *     (the splash, then /welcome), for /signin and for /signup, raw and as transferred
 *     (the compressed bytes Chromium received); fails when a screen transfers more than 150 KB;
 *  2. sign-up and sign-in through the forms, timed from submit to /home with the password
 *     KDF at the server's real cost (informative); then the chat screen's JavaScript: every
 *     script a signed-in tab loads to open a chat and send a sealed message (informative);
 *  3. Lighthouse's mobile profile (its default simulated throttling; web-perf-lighthouse.ts)
 *     on /welcome, /signin, /signup and /home, the last in a browser signed in through the form
 *     (web-perf-profile.ts: its keys in IndexedDB, its caches emptied): fails below accessibility 100;
 *     reports performance below 95, the best of up to 3 runs, naming the metrics and the audits
 *     that cost the points. Performance is reported, not failed: Lighthouse's simulation scales
 *     the CPU time it observes, so its score follows the load of a shared machine (on a quiet
 *     one every route scores 96-99); the load average is printed with the scores.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnServer } from '@app/server/spawn';
import { chromium, type Page } from '@playwright/test';
import { type LighthouseRun, lighthouse } from './web-perf-lighthouse.ts';
import { type SignedInProfile, signedInProfile } from './web-perf-profile.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const BUDGET_KB = 150;
const MIN_PERFORMANCE = 95;
const MIN_ACCESSIBILITY = 100;
const passes = (run: LighthouseRun) => run.performance >= MIN_PERFORMANCE && run.accessibility >= MIN_ACCESSIBILITY;
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
  /** Decoded size. */
  raw: number;
  /** The body's bytes as the browser received them (compressed), and their Content-Encoding. */
  received: number;
  coding: string;
}

/** Records every script `page` loads, by URL; `settled` once every response seen so far is read. */
function recordScripts(page: Page): { scripts: Map<string, Script>; settled: () => Promise<unknown> } {
  const scripts = new Map<string, Script>();
  const reading: Promise<void>[] = [];
  page.on('response', (res) => {
    if (res.request().resourceType() !== 'script') return;
    reading.push(
      (async () => {
        const body = await res.body().catch(() => null);
        const sizes = await res
          .request()
          .sizes()
          .catch(() => null);
        if (!body || !sizes) return;
        const coding = res.headers()['content-encoding'] ?? 'identity';
        scripts.set(res.url(), { raw: body.length, received: sizes.responseBodySize, coding });
      })(),
    );
  });
  return { scripts, settled: () => Promise.all(reading) };
}

interface Bytes {
  raw: number;
  received: number;
  codings: Set<string>;
}

/** The scripts' total bytes: decoded, and as received (the budget's measure). */
function total(scripts: Map<string, Script>): Bytes {
  const sum: Bytes = { raw: 0, received: 0, codings: new Set() };
  for (const script of scripts.values()) {
    sum.raw += script.raw;
    sum.received += script.received;
    sum.codings.add(script.coding);
  }
  return sum;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1).padStart(6)} KB`;
const describeBytes = (b: Bytes, files: number) =>
  `${kb(b.raw)} raw  ${kb(b.received)} transferred (${[...b.codings].join(', ')}) in ${files} files`;

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
let profile: SignedInProfile | null = null;
try {
  // ---- 1. the first screen's JavaScript ---------------------------------------------------
  const browser = await chromium.launch({ executablePath: CHROME, args: FLAGS.slice(1) });
  const screens: [string, string, RegExp][] = [
    ['first visit (/ then /welcome)', '/', /\/welcome$/],
    ['/signin', '/signin', /\/signin$/],
    ['/signup', '/signup', /\/signup$/],
  ];
  console.log(`First-screen JavaScript (budget ${BUDGET_KB} KB a screen as transferred, i.e. compressed):`);
  for (const [name, url, settled] of screens) {
    // No service worker: every script comes from the network, as on a first visit.
    const context = await browser.newContext({ serviceWorkers: 'block' });
    const page = await context.newPage();
    const { scripts, settled: read } = recordScripts(page);
    await page.goto(base + url);
    await page.waitForURL(settled, { timeout: 15_000 });
    // The screen drawn, its lazy chunks loaded ('networkidle' may date from the splash, whose
    // heading is the bare product name).
    await page
      .locator('main h1')
      .filter({ hasNotText: /^Parley$/ })
      .first()
      .waitFor({ timeout: 15_000 });
    await page.waitForLoadState('networkidle');
    await read();
    const bytes = total(scripts);
    const ok = bytes.received / 1024 <= BUDGET_KB && bytes.received > 0;
    if (!ok) {
      failed = true;
      console.error(
        `  ${name}: ${kb(bytes.received).trim()} of JavaScript transferred, over the ${BUDGET_KB} KB budget: split it by route`,
      );
    }
    console.log(`  ${name.padEnd(30)} ${describeBytes(bytes, scripts.size)}  ${ok ? 'ok' : 'OVER BUDGET'}`);
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
  const chatContext = await browser.newContext({
    storageState: await signUpContext.storageState(),
    serviceWorkers: 'block',
  });
  const chatPage = await chatContext.newPage();
  const { scripts: chatScripts, settled: chatRead } = recordScripts(chatPage);
  await chatPage.goto(`${base}/chat/${peer.user.id}`);
  const input = chatPage.getByRole('textbox', { name: 'Message', exact: true });
  await input.fill('hello from the budget script');
  await input.press('Enter');
  await chatPage.locator('[data-message-id]').first().waitFor();
  await chatPage.waitForLoadState('networkidle');
  await chatRead();
  console.log(
    `Chat screen JavaScript (signed in, a chat opened and a message sealed; informative): ${describeBytes(total(chatScripts), chatScripts.size)}`,
  );
  await browser.close();

  // ---- 3. Lighthouse -----------------------------------------------------------------------
  // Mobile profile, default simulated throttling. The machine is shared, so a route passes on
  // its best of up to LIGHTHOUSE_RUNS runs (3); PERF_ALL_RUNS=1 makes every route run them all;
  // PERF_ONLY=<text> runs the routes whose name holds it; PERF_REPORTS=<dir> keeps the reports.
  const only = process.env.PERF_ONLY ?? '';
  const maxRuns = Number(process.env.LIGHTHOUSE_RUNS ?? 3);
  const allRuns = process.env.PERF_ALL_RUNS === '1';
  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  console.log(
    `\nLighthouse (mobile, simulated throttling; accessibility must be ${MIN_ACCESSIBILITY}, performance target ${MIN_PERFORMANCE}; best of up to ${maxRuns} runs; load average ${load} on ${os.cpus().length} cores):`,
  );
  const lighthouseFailures: string[] = [];
  const belowTarget: string[] = [];
  // /home in a browser signed in through the form (its keys in IndexedDB), caches emptied.
  profile = await signedInProfile(base, user, { executablePath: CHROME, args: FLAGS.slice(1) });
  for (const [name, url, signedIn] of [
    ['/welcome', `${base}/welcome`, false],
    ['/signin', `${base}/signin`, false],
    ['/signup', `${base}/signup`, false],
    ['/home (signed in)', `${base}/home`, true],
  ] as const) {
    if (!name.includes(only)) continue;
    const runs: LighthouseRun[] = [];
    for (let i = 1; i <= maxRuns; i++) {
      let run: LighthouseRun;
      try {
        if (signedIn) await profile.coldCaches();
        run = await lighthouse(url, signedIn ? { port: profile.port } : { chromeFlags: FLAGS });
      } catch (err) {
        console.log(`  ${name.padEnd(18)} run ${i}: could not run: ${err instanceof Error ? err.message : err}`);
        continue;
      }
      runs.push(run);
      console.log(
        `  ${name.padEnd(18)} run ${i}: performance ${String(run.performance).padStart(3)}  accessibility ${String(run.accessibility).padStart(3)}   ${run.metrics.join('  ')}`,
      );
      if (!allRuns && passes(run)) break;
    }
    const best = runs.reduce<LighthouseRun | null>(
      (a, b) => (a === null || b.performance > a.performance ? b : a),
      null,
    );
    if (!best) {
      lighthouseFailures.push(`${name}: Lighthouse did not run`);
      continue;
    }
    // A timing score on a shared machine: reported, not failed (see the top of this file).
    // What costs the points is printed so a change can aim at it.
    if (best.performance < MIN_PERFORMANCE) {
      belowTarget.push(
        `${name}: performance ${best.performance} (best of ${runs.length}) < ${MIN_PERFORMANCE}; metrics ${best.metrics.join(', ')}; costs: ${best.perfCosts.slice(0, 5).join('; ') || 'none listed'}`,
      );
    }
    const worstA11y = runs.reduce((a, b) => (b.accessibility < a.accessibility ? b : a));
    if (worstA11y.accessibility < MIN_ACCESSIBILITY) {
      lighthouseFailures.push(
        `${name}: accessibility ${worstA11y.accessibility} < ${MIN_ACCESSIBILITY}; failing: ${worstA11y.a11yFailures.join('; ') || 'none listed'}`,
      );
    }
    if (best.perfCosts.length) console.log(`  ${''.padEnd(18)} costs: ${best.perfCosts.slice(0, 5).join('; ')}`);
    if (best.shifts.length) console.log(`  ${''.padEnd(18)} layout shifts: ${best.shifts.slice(0, 3).join('; ')}`);
  }
  if (belowTarget.length)
    console.log(
      `\nLighthouse performance below ${MIN_PERFORMANCE} in this run (load average ${load}; reported, not failed):\n  ${belowTarget.join('\n  ')}`,
    );
  if (lighthouseFailures.length) {
    failed = true;
    console.error(`\nLighthouse below its bar:\n  ${lighthouseFailures.join('\n  ')}`);
  }
} finally {
  await profile?.close();
  await stop();
}
if (failed) process.exit(1);

import path from 'node:path';
import { defineConfig, devices } from '@playwright/test';
import { CHROMIUM_HEADLESS, E2E_BASE_URL, E2E_PORT, SHOOTING } from './env.ts';

// Pictures for people to look at (`npm run screenshots`): its checks (every screen ready,
// none scrolling sideways on a phone) are the a11y pass's too (tests/axe.ts).
const PICTURES_ONLY = SHOOTING ? [] : ['**/screenshots.spec.ts'];

// Every server of the suite (and the browsers' sign-ups) derive passwords with cheap scrypt
// (2^10): hundreds of accounts are made here. The real cost (2^17) is measured by test:perf.
process.env.KDF_COST ??= '10';
// …which a normal build refuses (its floor is 2^17, packages/e2ee/src/kdf-floor.ts): every
// server of the suite serves the test build, whose floor is 2^10 (`npm run build:test`).
process.env.WEB_DIST ??= path.resolve(import.meta.dirname, '../apps/web/dist-test');

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export default defineConfig({
  testDir: './tests',
  // Per port, like the data dir: two runs at once must not wipe each other's artifacts.
  outputDir: `./test-results-${E2E_PORT}`,
  fullyParallel: true,
  workers: process.env.CI ? 2 : 2,
  retries: process.env.CI ? 1 : 0,
  // Generous: on a shared 2-core machine two browsers (software-rendered) and the server
  // compete for the CPU, and a step that takes a second alone can take ten. Timeouts here
  // catch hangs; no test measures speed with them.
  timeout: 90_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  use: {
    baseURL: E2E_BASE_URL,
    // Recording a trace (DOM snapshots and screencast of every step) doubles what a test
    // costs the CPU (150 s against 77 s for the same 19 tests): a failed test is traced on
    // its retry (CI retries once); locally, `--trace on`.
    trace: 'on-first-retry',
    // The app's service worker (offline shell, Web Push) would serve pages past page.route:
    // the specs about it allow it (pwa.spec.ts); every other spec sees the network as it is.
    serviceWorkers: 'block',
    launchOptions: { executablePath: CHROMIUM_HEADLESS, args: CHROMIUM_ARGS },
  },
  projects: [
    {
      name: 'desktop',
      testIgnore: PICTURES_ONLY,
      use: { ...devices['Desktop Chrome'], viewport: { width: 1280, height: 800 }, channel: undefined },
    },
  ],
  webServer: {
    command: 'node server.ts',
    cwd: import.meta.dirname,
    url: `${E2E_BASE_URL}/healthz`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'pipe',
    stderr: 'pipe',
  },
});

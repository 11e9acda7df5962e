/**
 * A browser profile that is signed in the way a user's is, for Lighthouse on the signed-in
 * screens (web-perf.ts): the session cookie and the keys the sign-in form unlocked into
 * IndexedDB. A fresh profile with only the cookie would measure a state no user is in (the
 * "unlock your messages" banner of a browser without keys).
 *
 * Lighthouse attaches to this Chromium over its debugging port and keeps its storage
 * (`--disable-storage-reset`); before each run `coldCaches` empties what a first visit of the
 * day would not have: the HTTP cache, the service worker and its Cache Storage. So a run loads
 * every file from the (simulated) network, as the runs of the signed-out screens do.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type BrowserContext, chromium } from '@playwright/test';

export interface SignedInProfile {
  /** Chromium's remote debugging port, for Lighthouse's `--port`. */
  port: number;
  coldCaches(): Promise<void>;
  close(): Promise<void>;
}

/** The port Chromium chose for `--remote-debugging-port=0`, from the profile's DevToolsActivePort. */
async function debuggingPort(dir: string): Promise<number> {
  for (let i = 0; i < 100; i++) {
    try {
      const port = Number(readFileSync(path.join(dir, 'DevToolsActivePort'), 'utf8').split('\n')[0]);
      if (port > 0) return port;
    } catch {
      // not written yet
    }
    await sleep(50);
  }
  throw new Error('Chromium wrote no DevToolsActivePort');
}

/** Signs `login` in through the /signin form of `base` in a new persistent profile. */
export async function signedInProfile(
  base: string,
  login: { email: string; password: string },
  browser: { executablePath: string; args: string[] },
): Promise<SignedInProfile> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'parley-perf-profile-'));
  let context: BrowserContext | null = null;
  try {
    context = await chromium.launchPersistentContext(dir, {
      executablePath: browser.executablePath,
      args: [...browser.args, '--remote-debugging-port=0'],
    });
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${base}/signin`);
    await page.locator('#signin-login').fill(login.email);
    await page.locator('#signin-password').fill(login.password);
    await page.locator('button[type=submit]').click();
    await page.waitForURL(/\/home$/, { timeout: 30_000 });
    // The chat list drawn, its key check answered, and no banner: this browser holds the keys.
    await page.getByText('No conversations yet').waitFor();
    await page.waitForLoadState('networkidle');
    if (await page.getByText('Enter your password to read your messages').count()) {
      throw new Error('the signed-in profile has no keys');
    }
    await page.goto('about:blank');
    const cdp = await context.newCDPSession(page);
    const origin = new URL(base).origin;
    const port = await debuggingPort(dir);
    const open = context;
    return {
      port,
      async coldCaches() {
        await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'service_workers,cache_storage' });
        await cdp.send('Network.clearBrowserCache');
      },
      async close() {
        await open.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await context?.close();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

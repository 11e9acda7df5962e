/**
 * Every shell preloads the session question (apps/web/route-preloads.ts), and the app's own
 * request is that preload: one GET /api/session per start, signed out and signed in, and
 * no "preloaded but not used" warning (Chromium logs it a few seconds after load when the
 * app's fetch did not match the preload's mode or credentials).
 */
import type { Page } from '@playwright/test';
import { expect, test } from './chat-helpers.ts';

/** Loads `path` and returns the session requests and the preload warnings it caused. */
async function start(page: Page, path: string, settled: () => Promise<void>) {
  const requests: string[] = [];
  const warnings: string[] = [];
  const onRequest = (req: { url(): string; method(): string }) => {
    if (new URL(req.url()).pathname === '/api/session') requests.push(req.method());
  };
  const onConsole = (msg: { text(): string }) => {
    if (/preload/i.test(msg.text())) warnings.push(msg.text());
  };
  page.on('request', onRequest);
  page.on('console', onConsole);
  await page.goto(path);
  await settled();
  // Chromium's unused-preload warning comes 3 s after the load event.
  await page.waitForTimeout(3_500);
  page.off('request', onRequest);
  page.off('console', onConsole);
  return { requests, warnings };
}

test('a signed-out start asks who is signed in once, with the preloaded request', async ({ page }) => {
  const { requests, warnings } = await start(page, '/welcome', () =>
    expect(page.getByRole('link', { name: /sign in/i }).first()).toBeVisible(),
  );
  expect(requests).toEqual(['GET']);
  expect(warnings).toEqual([]);
  // The hint that makes the next start load the session's schemas early (lib/session.ts).
  expect(await page.evaluate(() => localStorage.getItem('parley:signed-in'))).toBeNull();
});

test('a signed-in start asks who is signed in once, with the preloaded request', async ({ people }) => {
  const alice = await people.person('alice');
  const page = alice.page;
  const { requests, warnings } = await start(page, '/home', () =>
    expect(page.getByText('No conversations yet')).toBeVisible(),
  );
  expect(requests).toEqual(['GET']);
  expect(warnings).toEqual([]);
  // The hint that makes the next start load the session's schemas early (lib/session.ts).
  expect(await page.evaluate(() => localStorage.getItem('parley:signed-in'))).toBe('1');
});

/**
 * A signed-in browser for a test whose subject is not signing in: the session cookies of an
 * API sign-in ("Remember me"), and the account's keys put in this browser by the test
 * build's hook (apps/web/src/test-hooks.ts) where the form's sign-in leaves them. About a
 * fifth of the form's time; the form itself is the subject of sign-in.spec.ts and
 * sign-up.spec.ts, and of every test that signs in again on purpose.
 */
import type { Page } from '@playwright/test';
import { E2E_BASE_URL } from '../env.ts';
import { apiSignIn } from './api-accounts.ts';
import { expect, type NewUser, signInViaApi } from './fixtures.ts';

const THIRTY_DAYS_S = 30 * 24 * 60 * 60;

declare global {
  interface Window {
    /** apps/web/src/test-hooks.ts (the test build's). */
    __parleyTest?: { adopt(account: unknown): Promise<void> };
  }
}

/**
 * Leaves `page` on about:blank, signed in as `user` with the keys in this browser, as the
 * form would (an account without keys, a legacy one, goes through the form).
 */
export async function signInPrepared(page: Page, user: NewUser, baseURL = E2E_BASE_URL): Promise<void> {
  const s = await apiSignIn(baseURL, user);
  if (!s.keys || !s.sid) {
    await signInViaApi(page, user.email, user.password, baseURL);
    return;
  }
  // The app signed out (no cookie yet): its test hook is there once the page has loaded.
  await page.goto(`${baseURL}/signin`);
  await expect.poll(() => page.evaluate(() => window.__parleyTest !== undefined)).toBe(true);
  const account = { userId: s.userId, username: user.username, email: s.email, ...s.keys };
  await page.evaluate((a) => window.__parleyTest?.adopt(a), account);
  const expires = Math.floor(Date.now() / 1000) + THIRTY_DAYS_S;
  const cookie = { url: baseURL, httpOnly: true, sameSite: 'Lax' as const, expires };
  await page
    .context()
    .addCookies([
      { ...cookie, name: 'sid', value: s.sid },
      ...(s.did ? [{ ...cookie, name: 'did', value: s.did }] : []),
    ]);
  await page.goto('about:blank');
}

/**
 * Shared helpers for the browser tests: users created through the real API, the
 * server's e-mail outbox, and a check that no page breaks its Content-Security-Policy.
 */

import { readOutbox } from '@app/server/test';
import { type APIRequestContext, test as base, expect, type Page } from '@playwright/test';
import { E2E_BASE_URL, E2E_DATA_DIR, SHOOTING } from '../env.ts';
import { apiSignUp } from './api-accounts.ts';

export { expect };

let seq = 0;

export interface NewUser {
  name: string;
  phone: string;
  age: number;
  username: string;
  email: string;
  password: string;
}

/** A unique valid user (handles stay within 20 characters). */
export function makeUser(prefix = 'u', overrides: Partial<NewUser> = {}): NewUser {
  seq += 1;
  const tag = `${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}${seq}`;
  const username = `${prefix}_${tag}`.slice(0, 20);
  return {
    name: `${prefix[0]?.toUpperCase()}${prefix.slice(1)} Tester`,
    phone: '5551234567',
    age: 30,
    username,
    email: `${username.toLowerCase()}@example.com`,
    password: 'correct-horse-1',
    ...overrides,
  };
}

/** Creates the account through the API (fast); the browser context's cookies are not touched. */
export async function createUserViaApi(_request: APIRequestContext, user: NewUser): Promise<{ id: string }> {
  return { id: (await apiSignUp(E2E_BASE_URL, user)).id };
}

/**
 * Signs in through the form, as a person would: the page ends on its landing screen with
 * the session cookie and this browser's copy of the account's keys (which an API sign-in
 * would not leave: the password never reaches the server, and only the page derives them).
 */
export async function signInViaApi(page: Page, login: string, password: string, baseURL = E2E_BASE_URL): Promise<void> {
  await page.goto(`${baseURL}/signin`);
  await page.locator('#signin-login').fill(login);
  await page.locator('#signin-password').fill(password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expect(page).not.toHaveURL(/\/signin/, { timeout: 15_000 });
  // Leave the app, as an API sign-in would have: not connected (offline to others) until the test opens a screen.
  await page.goto('about:blank');
}

/** The newest e-mail to `to` whose subject matches, waiting for it to arrive. */
export async function latestMail(to: string, subject: RegExp) {
  let found: ReturnType<typeof readOutbox>[number] | undefined;
  await expect
    .poll(
      () => {
        found = readOutbox(E2E_DATA_DIR)
          .reverse()
          .find((m) => m.to.includes(to) && subject.test(m.subject));
        return Boolean(found);
      },
      { message: `mail to ${to} matching ${subject}` },
    )
    .toBe(true);
  return found as NonNullable<typeof found>;
}

/** The link in the newest mail to `to` whose path starts with `pathPrefix`. */
export async function linkFromMail(to: string, subject: RegExp, pathPrefix: string): Promise<string> {
  const mail = await latestMail(to, subject);
  const link = mail.links.find((l) => new URL(l).pathname.startsWith(pathPrefix));
  expect(link, `link ${pathPrefix} in mail`).toBeTruthy();
  return link as string;
}

/** Fails the test if the page logs a CSP violation or an uncaught error. */
export const test = base.extend<{ cspGuard: undefined }>({
  cspGuard: [
    async ({ page }, use) => {
      const problems: string[] = [];
      page.on('console', (msg) => {
        if (msg.type() === 'error' && /Content Security Policy|Refused to/i.test(msg.text())) problems.push(msg.text());
      });
      page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
      await use(undefined);
      expect(problems, 'CSP violations or page errors').toEqual([]);
    },
    { auto: true },
  ],
});

/** Saves a screenshot under e2e/screenshots for people to look at (`npm run screenshots`; otherwise nothing). */
export async function shot(page: Page, name: string): Promise<void> {
  if (!SHOOTING) return;
  const width = page.viewportSize()?.width ?? 0;
  await page.screenshot({ path: `${import.meta.dirname}/../screenshots/${name}-${width}.png`, fullPage: true });
}

/**
 * Screenshots at 1280 and 390 px in light and dark (`shot` names them `${name}-${scheme}-${width}`);
 * `check` runs once per scheme before its shots (in every run: it may assert). Leaves the
 * page light at 1280x800.
 */
export async function shotSchemes(
  page: Page,
  name: string,
  check?: (scheme: 'light' | 'dark') => Promise<void>,
): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await check?.(scheme);
    if (!SHOOTING) continue;
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      await shot(page, `${name}-${scheme}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });
}

/**
 * Splash (/) and the two-step intro (/welcome), spec section 2 "Splash" / "Welcome" and
 * section 4 "Authentication" and "Welcome intro".
 */
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { signInNewUser } from './screen-helpers.ts';

const SPLASH_MS = 2000;
/** Timer and timestamp rounding; the splash must never leave noticeably early. */
const TOLERANCE_MS = 25;

interface SplashLeave {
  /** performance.now() when the app replaced '/' by its next screen. */
  at: number;
  to: string;
  /** Whether the splash heading was still on screen at that moment. */
  splashShown: boolean;
  /** When the session answer (which starts the 2 s wait) had been received. */
  sessionAt: number | null;
}

/**
 * Records, inside the page, the moment the app leaves '/', so the timing does not
 * depend on how fast the test runner polls.
 */
async function recordSplashLeave(page: Page) {
  await page.addInitScript(() => {
    const leaves: unknown[] = [];
    (window as unknown as { __splashLeaves: unknown[] }).__splashLeaves = leaves;
    for (const method of ['pushState', 'replaceState'] as const) {
      const original = history[method].bind(history);
      history[method] = (data: unknown, unused: string, url?: string | URL | null) => {
        if (url && location.pathname === '/' && new URL(url, location.href).pathname !== '/') {
          const session = performance
            .getEntriesByType('resource')
            .find((e) => new URL(e.name).pathname === '/api/session') as PerformanceResourceTiming | undefined;
          leaves.push({
            at: performance.now(),
            to: new URL(url, location.href).pathname,
            splashShown: document.querySelector('h1')?.textContent === 'Parley',
            sessionAt: session ? session.responseEnd : null,
          });
        }
        return original(data, unused, url);
      };
    }
  });
}

async function splashLeave(page: Page): Promise<SplashLeave> {
  const leaves = await page.evaluate(() => (window as unknown as { __splashLeaves: SplashLeave[] }).__splashLeaves);
  expect(leaves).toHaveLength(1);
  return leaves[0] as SplashLeave;
}

test.describe('splash', () => {
  test('shows the name and "by" its maker on the gradient, and stays while the clock is stopped', async ({ page }) => {
    // Time stands still: the 2-second timer cannot fire, so the checks cannot race it.
    await page.clock.install();
    await page.clock.pauseAt(Date.now() + 1000);
    const session = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/session');
    await page.goto('/');
    await session;
    await expect(page.getByRole('heading', { level: 1, name: 'Parley' })).toBeVisible();
    await expect(page.getByText('by Parley Labs')).toBeVisible();
    const splash = page.locator('main').filter({ has: page.getByRole('heading', { name: 'Parley' }) });
    expect(await splash.evaluate((el) => getComputedStyle(el).backgroundImage)).toContain('linear-gradient');
    expect(await splash.evaluate((el) => getComputedStyle(el).color)).toBe('rgb(255, 255, 255)');

    await page.clock.runFor(SPLASH_MS - 100);
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Parley' })).toBeVisible();
    await page.clock.resume();
    await expect(page).toHaveURL(/\/welcome$/, { timeout: SPLASH_MS + 4000 });
  });

  test('goes to /welcome when signed out, not before 2 s', async ({ page }) => {
    await recordSplashLeave(page);
    await page.goto('/');
    // Right after load the 2 s have not passed: still on the splash.
    expect(new URL(page.url()).pathname).toBe('/');
    await expect(page).toHaveURL(/\/welcome$/, { timeout: SPLASH_MS + 4000 });
    await expect(page.getByRole('heading', { name: 'Welcome to Parley' })).toBeVisible();

    const leave = await splashLeave(page);
    expect(leave.to).toBe('/welcome');
    expect(leave.splashShown).toBe(true);
    expect(leave.sessionAt).not.toBeNull();
    expect(leave.at - (leave.sessionAt ?? 0)).toBeGreaterThanOrEqual(SPLASH_MS - TOLERANCE_MS);
  });

  test('goes to /home when signed in, not before 2 s', async ({ page }) => {
    await signInNewUser(page, 'splash');
    await recordSplashLeave(page);
    await page.goto('/');
    expect(new URL(page.url()).pathname).toBe('/');
    await expect(page).toHaveURL(/\/home$/, { timeout: SPLASH_MS + 4000 });
    await expect(page.getByText('No conversations yet')).toBeVisible();

    const leave = await splashLeave(page);
    expect(leave.to).toBe('/home');
    expect(leave.splashShown).toBe(true);
    expect(leave.at - (leave.sessionAt ?? 0)).toBeGreaterThanOrEqual(SPLASH_MS - TOLERANCE_MS);
  });

  test('replaces itself in the history: Back from /welcome does not return to the splash', async ({ page }) => {
    await page.goto('/about');
    await page.goto('/');
    await expect(page).toHaveURL(/\/welcome$/, { timeout: SPLASH_MS + 4000 });
    await page.goBack();
    await expect(page).toHaveURL(/\/about$/);
  });
});

test.describe('welcome', () => {
  test('step one has the title, a subtitle, Next and Skip', async ({ page }) => {
    await page.goto('/welcome');
    await expect(page.getByRole('heading', { level: 1, name: 'Welcome to Parley' })).toBeVisible();
    await expect(page.getByText(/messaging to stay close/i)).toBeVisible();
    await expect(page.getByRole('button', { name: 'Next' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Skip', exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: "Let's Go!" })).toHaveCount(0);
    await expect(page.getByText('Step 1 of 2')).toBeAttached();
  });

  test('Next shows step two with the three benefits and no way back', async ({ page }) => {
    await page.goto('/welcome');
    await page.getByRole('button', { name: 'Next' }).click();

    const title = page.getByRole('heading', { level: 1, name: 'Why Parley?' });
    await expect(title).toBeVisible();
    await expect(title).toBeFocused();
    await expect(page.getByText('Step 2 of 2')).toBeAttached();
    for (const [benefit, text] of [
      ['Connect Instantly', /start conversations with anyone, anytime/i],
      ['Secure & Private', /encrypted and secure/i],
      ['Real-time Updates', /messages and status updates instantly/i],
    ] as const) {
      await expect(page.getByRole('heading', { level: 2, name: benefit })).toBeVisible();
      await expect(page.getByText(text)).toBeVisible();
    }
    await expect(page.getByRole('button', { name: "Let's Go!" })).toBeVisible();

    // Forward only: no Back, no Next, no Skip, no step one.
    await expect(page.getByRole('button', { name: /back|previous/i })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Next' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Skip', exact: true })).toHaveCount(0);
    await expect(page.getByRole('heading', { name: 'Welcome to Parley' })).toHaveCount(0);
  });

  test("Let's Go! goes to /signup", async ({ page }) => {
    await page.goto('/welcome');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('button', { name: "Let's Go!" }).click();
    await expect(page).toHaveURL(/\/signup$/);
    await expect(page.getByRole('button', { name: 'Sign Up' })).toBeVisible();
  });

  test('Skip goes to /signup from step one', async ({ page }) => {
    await page.goto('/welcome');
    await page.getByRole('button', { name: 'Skip', exact: true }).click();
    await expect(page).toHaveURL(/\/signup$/);
    await expect(page.getByRole('button', { name: 'Sign Up' })).toBeVisible();
  });

  test('the sign-in link goes to /signin', async ({ page }) => {
    await page.goto('/welcome');
    await page.getByRole('link', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(/\/signin$/);
  });
});

/**
 * Every screen at a desktop and a phone size, saved as e2e/screenshots/screen-<name>-<width>.png
 * for people to look at; on the phone no screen may scroll sideways.
 */
import type { Page } from '@playwright/test';
import { expect, shot, test } from './fixtures.ts';
import { scrollWidth, signInNewUser } from './screen-helpers.ts';

interface Screen {
  name: string;
  path: string;
  signedIn?: boolean;
  /** Waits until the screen is drawn (and puts it in the state to show). */
  settle: (page: Page) => Promise<void>;
}

const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name, exact: true });

const SCREENS: Screen[] = [
  {
    name: 'splash',
    path: '/',
    settle: async (page) => {
      await expect(heading(page, 'Parley')).toBeVisible();
      await expect(page.getByText('by Parley Labs')).toBeVisible();
    },
  },
  {
    name: 'welcome-1',
    path: '/welcome',
    settle: (page) => expect(heading(page, 'Welcome to Parley')).toBeVisible(),
  },
  {
    name: 'welcome-2',
    path: '/welcome',
    settle: async (page) => {
      await page.getByRole('button', { name: 'Next' }).click();
      await expect(heading(page, 'Why Parley?')).toBeVisible();
    },
  },
  {
    name: 'signup',
    path: '/signup',
    settle: (page) => expect(page.getByRole('button', { name: 'Sign Up' })).toBeVisible(),
  },
  {
    name: 'signin',
    path: '/signin',
    settle: (page) => expect(page.getByRole('button', { name: 'Sign In' })).toBeVisible(),
  },
  {
    name: 'forgot-password',
    path: '/forgot-password',
    settle: (page) => expect(page.getByRole('heading', { level: 1 })).toBeVisible(),
  },
  {
    name: 'terms',
    path: '/terms',
    settle: (page) => expect(page.getByRole('heading', { name: /Changes/ })).toBeVisible(),
  },
  {
    name: 'privacy',
    path: '/privacy',
    settle: (page) => expect(page.getByRole('heading', { name: /Contact/ })).toBeVisible(),
  },
  {
    name: 'about',
    path: '/about',
    settle: (page) => expect(page.getByText(/©\s*2024/)).toBeVisible(),
  },
  {
    name: 'blocked',
    path: '/blocked',
    settle: (page) => expect(heading(page, 'Account Blocked')).toBeVisible(),
  },
  {
    name: 'not-found',
    path: '/no-such-page',
    settle: (page) => expect(heading(page, 'Oops! Page not found')).toBeVisible(),
  },
  {
    name: 'home',
    path: '/home',
    signedIn: true,
    settle: async (page) => {
      await expect(page.getByText('No conversations yet')).toBeVisible();
      await expect(page.getByText('Please verify your e-mail')).toBeVisible();
    },
  },
  {
    name: 'home-search',
    path: '/home',
    signedIn: true,
    settle: async (page) => {
      await page.getByRole('button', { name: 'Search' }).click();
      await expect(page.getByPlaceholder('Search by username...')).toBeFocused();
    },
  },
  {
    name: 'settings',
    path: '/settings',
    signedIn: true,
    settle: async (page) => {
      await expect(heading(page, 'Settings')).toBeVisible();
      // The Help row settles once the public settings have loaded (badge or link).
      await expect(
        page
          .locator('main li')
          .filter({ hasText: /^Help/ })
          .filter({ hasText: /Coming Soon|opens in a new tab/ }),
      ).toBeVisible();
    },
  },
  {
    name: 'account',
    path: '/account',
    signedIn: true,
    settle: (page) => expect(heading(page, 'Account')).toBeVisible(),
  },
];

const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

for (const viewport of VIEWPORTS) {
  test.describe(`at ${viewport.width}x${viewport.height}`, () => {
    test.use({ viewport });

    for (const screen of SCREENS) {
      test(`${screen.name}`, async ({ page }) => {
        if (screen.signedIn) await signInNewUser(page, 'shot');
        await page.goto(screen.path);
        await screen.settle(page);
        await page.evaluate(() => document.fonts.ready);
        // Prefixed: other suites save screenshots of some of the same screens under plain names.
        await shot(page, `screen-${screen.name}`);
        if (viewport.width <= 390) {
          expect(await scrollWidth(page), 'no horizontal overflow').toBeLessThanOrEqual(viewport.width);
        }
      });
    }
  });
}

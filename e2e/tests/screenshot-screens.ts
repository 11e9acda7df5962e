/**
 * The screens screenshots.spec.ts saves: each a route and what to wait for (the state to
 * show), and the shooting itself: at 1280x800 and 390x844 in one colour scheme, saved as
 * e2e/screenshots/screen-<name>-<scheme>-<width>.png; on the phone nothing may scroll sideways.
 */
import type { Page } from '@playwright/test';
import { SHOOTING } from '../env.ts';
import { expect, shot } from './fixtures.ts';
import { expectNoSidewaysScroll } from './screen-helpers.ts';

export type Scheme = 'light' | 'dark';
export const SCHEMES: Scheme[] = ['light', 'dark'];

export interface Screen {
  name: string;
  path: string;
  /** Waits until the screen is drawn (and puts it in the state to show). */
  settle: (page: Page) => Promise<void>;
  /** Only at these widths (a state of the desktop layout); both when absent. */
  widths?: number[];
  /** The window only: a fixed overlay (a dialog) covers the window, not a full-page shot. */
  windowOnly?: boolean;
}

export const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

export const heading = (page: Page, name: string | RegExp) =>
  page.getByRole('heading', { level: 1, name, exact: typeof name === 'string' ? true : undefined });

/** Waits for the top heading and the end of every loading spinner. */
export function loaded(name: string | RegExp) {
  return async (page: Page) => {
    await expect(heading(page, name)).toBeVisible();
    await expect(page.getByLabel('Loading', { exact: true })).toHaveCount(0);
  };
}

/** Opens each screen at each size in `scheme`, saves it and checks the phone size for sideways scrolling. */
export async function shootAll(page: Page, scheme: Scheme, screens: Screen[]): Promise<void> {
  await page.emulateMedia({ colorScheme: scheme });
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport);
    for (const screen of screens) {
      if (screen.widths && !screen.widths.includes(viewport.width)) continue;
      await page.goto(screen.path);
      await screen.settle(page);
      await page.evaluate(() => document.fonts.ready);
      // Prefixed: other suites save screenshots of some of the same screens under plain names.
      if (screen.windowOnly) {
        if (SHOOTING) await page.screenshot({ path: `${SHOTS}/screen-${screen.name}-${scheme}-${viewport.width}.png` });
      } else await shot(page, `screen-${screen.name}-${scheme}`);
      if (viewport.width <= 390) {
        await expectNoSidewaysScroll(page, screen.name);
      }
    }
  }
  await page.setViewportSize(VIEWPORTS[0] as (typeof VIEWPORTS)[number]);
}

const SHOTS = `${import.meta.dirname}/../screenshots`;

// A token of the right shape: the form shows until it is sent.
const RESET_TOKEN = 'a'.repeat(43);

export const SIGNED_OUT: Screen[] = [
  {
    name: 'splash',
    path: '/',
    settle: async (page) => {
      await expect(heading(page, 'Parley')).toBeVisible();
      await expect(page.getByText('by Parley Labs')).toBeVisible();
    },
  },
  { name: 'welcome-1', path: '/welcome', settle: (page) => expect(heading(page, 'Welcome to Parley')).toBeVisible() },
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
  { name: 'forgot-password', path: '/forgot-password', settle: loaded('Forgot Password') },
  {
    name: 'reset-password',
    path: `/reset-password?token=${RESET_TOKEN}`,
    settle: async (page) => {
      await expect(heading(page, 'Reset Password')).toBeVisible();
      await expect(page.getByRole('button', { name: /Reset Password|Save/ })).toBeVisible();
    },
  },
  {
    name: 'reset-password-invalid',
    path: '/reset-password',
    settle: async (page) => {
      await expect(heading(page, 'Reset Password')).toBeVisible();
      await expect(page.getByRole('link', { name: 'Request a new link' })).toBeVisible();
    },
  },
  {
    name: 'verify-email',
    path: '/verify-email',
    settle: async (page) => {
      await expect(heading(page, 'Verify Email')).toBeVisible();
      await expect(page.getByText('Sign in to send yourself a new link.')).toBeVisible();
    },
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
  { name: 'about', path: '/about', settle: (page) => expect(page.getByText(/©\s*2024/)).toBeVisible() },
  { name: 'blocked', path: '/blocked', settle: (page) => expect(heading(page, 'Account Blocked')).toBeVisible() },
  {
    name: 'not-found',
    path: '/no-such-page',
    settle: (page) => expect(heading(page, 'Oops! Page not found')).toBeVisible(),
  },
];

/** The screens of a signed-in user with no chats yet (and no PIN, until `locked`, which needs one). */
export const SIGNED_IN_EMPTY: Screen[] = [
  {
    name: 'home',
    path: '/home',
    settle: async (page) => {
      await expect(page.getByText('No conversations yet')).toBeVisible();
      await expect(page.getByText('Please verify your e-mail')).toBeVisible();
    },
  },
  {
    name: 'home-search',
    path: '/home',
    settle: async (page) => {
      await page.getByRole('button', { name: 'Search' }).click();
      await expect(page.getByPlaceholder('Search by username...')).toBeFocused();
    },
  },
  {
    name: 'contacts',
    path: '/contacts',
    settle: async (page) => {
      await loaded('Contacts')(page);
      await expect(page.getByRole('list', { name: 'Users' }).getByRole('listitem').first()).toBeVisible();
    },
  },
  {
    name: 'notifications-empty',
    path: '/notifications',
    settle: async (page) => {
      await loaded('Notifications')(page);
      await expect(page.getByText('No notifications', { exact: true })).toBeVisible();
    },
  },
  {
    name: 'settings',
    path: '/settings',
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
    name: 'profile',
    path: '/profile',
    settle: async (page) => {
      await loaded('Profile')(page);
      await expect(page.getByRole('button', { name: 'Save Changes' })).toBeVisible();
    },
  },
  { name: 'account', path: '/account', settle: loaded('Account') },
  {
    name: 'account-delete-dialog',
    path: '/account',
    windowOnly: true,
    settle: async (page) => {
      await loaded('Account')(page);
      await page.getByRole('button', { name: 'Delete Account' }).click();
      await expect(page.getByRole('alertdialog').or(page.getByRole('dialog')).getByRole('heading')).toHaveText(
        'Are you absolutely sure?',
      );
    },
  },
  {
    name: 'privacy-settings',
    path: '/privacy-settings',
    settle: async (page) => {
      await loaded('Privacy Settings')(page);
      await expect(page.getByRole('switch').first()).toBeVisible();
    },
  },
  { name: 'about-signed-in', path: '/about', settle: (page) => expect(page.getByText(/©\s*2024/)).toBeVisible() },
  {
    name: 'archive-empty',
    path: '/archive',
    settle: async (page) => {
      await loaded('Archived')(page);
      await expect(page.getByText('No archived conversations')).toBeVisible();
    },
  },
  {
    name: 'locked-no-pin',
    path: '/locked',
    settle: async (page) => {
      await loaded('Locked')(page);
      await expect(page.getByRole('link', { name: 'Set a PIN' })).toBeVisible();
    },
  },
];

/**
 * The signed-in menu screens: Settings (spec section 2 "Settings") and the chat list's
 * header, search and empty state ("Chat list").
 */
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { setHelpLink, signInNewUser } from './screen-helpers.ts';

/** The settings rows, by their visible label. */
function row(page: Page, label: string) {
  return page.locator('main li').filter({ has: page.getByText(label, { exact: true }) });
}

test.describe('settings', () => {
  test("lists Profile, Account, Privacy, Two-step verification, Where you're signed in, Download my data, Help, Keyboard shortcuts, About and Version under the user card", async ({
    page,
  }) => {
    const user = await signInNewUser(page, 'set');
    await page.goto('/settings');
    await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
    await expect(page.getByText(`@${user.username}`)).toBeVisible();
    await expect(page.getByText(user.name, { exact: true })).toBeVisible();

    await expect(page.getByRole('link', { name: 'Profile' })).toHaveAttribute('href', '/profile');
    await expect(page.getByRole('link', { name: 'Account' })).toHaveAttribute('href', '/account');
    await expect(page.getByRole('link', { name: 'Privacy' })).toHaveAttribute('href', '/privacy-settings');
    await expect(page.getByRole('link', { name: 'Two-step verification' })).toHaveAttribute('href', '/two-step');
    await expect(page.getByRole('link', { name: "Where you're signed in" })).toHaveAttribute('href', '/sessions');
    await expect(page.getByRole('link', { name: 'About' })).toHaveAttribute('href', '/about');
    await expect(row(page, 'Help')).toBeVisible();
    await expect(row(page, 'Version')).toContainText('1.0.0');
    await expect(page.locator('main li')).toHaveText([
      'Profile',
      'Account',
      'Privacy',
      'Two-step verification',
      "Where you're signed in",
      'Download my data',
      /^Help/,
      'Keyboard shortcuts',
      'About',
      /^Version\s*1\.0\.0$/,
    ]);
  });

  test('the Account row opens /account', async ({ page }) => {
    await signInNewUser(page, 'set');
    await page.goto('/settings');
    await page.getByRole('link', { name: 'Account' }).click();
    await expect(page).toHaveURL(/\/account$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Account' })).toBeVisible();
  });

  test('the About row opens /about, and its Back returns to /settings', async ({ page }) => {
    await signInNewUser(page, 'set');
    await page.goto('/settings');
    await page.getByRole('link', { name: 'About' }).click();
    await expect(page).toHaveURL(/\/about$/);
    await expect(page.getByText('Version 1.0.0')).toBeVisible();
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page).toHaveURL(/\/settings$/);
  });

  test('Back goes to /home', async ({ page }) => {
    await signInNewUser(page, 'set');
    await page.goto('/settings');
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page).toHaveURL(/\/home$/);
    await expect(page.getByText('No conversations yet')).toBeVisible();
  });

  test('sends a signed-out visitor to /signin', async ({ page }) => {
    await page.goto('/settings');
    await expect(page).toHaveURL(/\/signin\?next=%2Fsettings$/);
  });

  // These change the server-wide help link, so they run one after another and put it back.
  test.describe('help link', () => {
    test.describe.configure({ mode: 'serial' });

    test('without a help link, Help shows Coming Soon and is not a link', async ({ page }) => {
      setHelpLink(null);
      await signInNewUser(page, 'help');
      await page.goto('/settings');
      await expect(row(page, 'Help')).toContainText('Coming Soon');
      await expect(page.getByRole('link', { name: /Help/ })).toHaveCount(0);
    });

    test('with a help link, Help opens it in a new tab', async ({ page }) => {
      await signInNewUser(page, 'help');
      setHelpLink('https://example.com/help');
      try {
        await page.goto('/settings');
        const help = page.getByRole('link', { name: /Help/ });
        await expect(help).toHaveAttribute('href', 'https://example.com/help');
        await expect(help).toHaveAttribute('target', '_blank');
        await expect(help).toHaveAttribute('rel', /\bnoopener\b/);
        await expect(row(page, 'Help')).not.toContainText('Coming Soon');
      } finally {
        setHelpLink(null);
      }
    });

    test('a javascript: help link is not rendered as a link', async ({ page }) => {
      await signInNewUser(page, 'help');
      setHelpLink('javascript:alert(1)');
      try {
        await page.goto('/settings');
        await expect(row(page, 'Help')).toContainText('Coming Soon');
        await expect(page.getByRole('link', { name: /Help/ })).toHaveCount(0);
        await expect(page.locator('a[href^="javascript:" i]')).toHaveCount(0);
      } finally {
        setHelpLink(null);
      }
    });
  });
});

test.describe('home', () => {
  test('has the header buttons, the empty state and the unverified banner', async ({ page }) => {
    const user = await signInNewUser(page, 'home');
    await page.goto('/home');
    await expect(page.getByRole('heading', { level: 1, name: 'Parley' })).toBeVisible();
    const header = page.getByRole('banner');
    await expect(header.getByRole('link', { name: 'Notifications' })).toHaveAttribute('href', '/notifications');
    await expect(header.getByRole('link', { name: 'Contacts' })).toHaveAttribute('href', '/contacts');
    await expect(header.getByRole('button', { name: 'Search' })).toBeVisible();
    await expect(header.getByRole('link', { name: 'Settings' })).toHaveAttribute('href', '/settings');
    await expect(page.getByRole('link', { name: 'New chat' })).toHaveAttribute('href', '/contacts');

    await expect(page.getByText('No conversations yet')).toBeVisible();
    await expect(page.getByText('Search for users to start chatting')).toBeVisible();

    const banner = page.getByRole('status').filter({ hasText: 'Please verify your e-mail' });
    await expect(banner).toBeVisible();
    await expect(banner).toContainText(user.email);
    await expect(banner.getByRole('button', { name: 'Resend email' })).toBeVisible();
  });

  test('the search toggle reveals and hides the username search', async ({ page }) => {
    await signInNewUser(page, 'home');
    await page.goto('/home');
    const toggle = page.getByRole('button', { name: 'Search' });
    const box = page.getByPlaceholder('Search by username...');
    await expect(box).toHaveCount(0);
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');

    await toggle.click();
    await expect(box).toBeVisible();
    await expect(box).toBeFocused();
    await expect(toggle).toHaveAttribute('aria-expanded', 'true');
    await box.fill('nobody');
    // No chats at all: still the empty state, not "No users found".
    await expect(page.getByText('No conversations yet')).toBeVisible();

    await box.press('Escape');
    await expect(box).toHaveCount(0);
    await toggle.click();
    await expect(box).toHaveValue('');
    await toggle.click();
    await expect(box).toHaveCount(0);
  });

  test('the settings button goes to /settings', async ({ page }) => {
    await signInNewUser(page, 'home');
    await page.goto('/home');
    await page.getByRole('link', { name: 'Settings' }).click();
    await expect(page).toHaveURL(/\/settings$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
  });

  test('sends a signed-out visitor to /signin', async ({ page }) => {
    await page.goto('/home');
    await expect(page).toHaveURL(/\/signin\?next=%2Fhome$/);
  });
});

/**
 * Dark mode: System (the default) follows prefers-color-scheme, live; Light or Dark in
 * Settings overrides the system and is remembered across a reload. The colours are read
 * from the page (computed backgrounds), not only the class. Then the dark screens at 1280
 * and 390 px, each checked for text contrast and saved as e2e/screenshots/<screen>-dark-<width>.png.
 */
import type { Locator, Page } from '@playwright/test';
import { expectToast } from './auth-helpers.ts';
import { bubble, chatRow, expect, openChat, send, shotSizes, test, tick } from './chat-helpers.ts';
import { contrastProblems, expectReadable } from './contrast.ts';
import { signInNewUser } from './screen-helpers.ts';

/** The page (--color-muted) and card (--color-background) colours of each theme. */
const LIGHT = { page: 'rgb(241, 245, 249)', card: 'rgb(255, 255, 255)', bar: '#4f46e5' };
const DARK = { page: 'rgb(2, 6, 23)', card: 'rgb(15, 23, 42)', bar: '#0f172a' };

function pageBackground(page: Page): Promise<string> {
  return page.evaluate(() => getComputedStyle(document.body).backgroundColor);
}

function themeColors(page: Page): Promise<string[]> {
  return page
    .locator('meta[name="theme-color"]')
    .evaluateAll((metas) => metas.map((m) => (m as HTMLMetaElement).content));
}

/** The page's and a card's background are the theme's, and <html> has the class "dark" only in the dark. */
async function expectTheme(page: Page, theme: typeof LIGHT, card: Locator) {
  await expect.poll(() => pageBackground(page)).toBe(theme.page);
  await expect(card).toHaveCSS('background-color', theme.card);
  await expect(page.locator('html')).toHaveClass(theme === DARK ? /(^|\s)dark(\s|$)/ : /^(?!.*\bdark\b)/);
}

function themeRadio(page: Page, name: 'Light' | 'Dark' | 'System') {
  return page.getByRole('group', { name: 'Theme' }).getByRole('radio', { name, exact: true });
}

test('System (the default) follows prefers-color-scheme, live', async ({ page }) => {
  const card = page.locator('main');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/welcome');
  await expect(page.getByRole('heading', { level: 1, name: /^Welcome to/ })).toBeVisible();
  await expectTheme(page, DARK, card);
  // Under System each theme-color meta keeps the colour of its own scheme.
  expect(await themeColors(page)).toEqual([LIGHT.bar, DARK.bar]);

  await page.emulateMedia({ colorScheme: 'light' });
  await expectTheme(page, LIGHT, card);
  await page.emulateMedia({ colorScheme: 'dark' });
  await expectTheme(page, DARK, card);
});

test('Dark in Settings overrides a light system, and is remembered across a reload', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  const card = page.getByRole('group', { name: 'Theme' });
  await signInNewUser(page, 'dark');
  await page.goto('/settings');
  await expect(themeRadio(page, 'System')).toBeChecked();
  await expectTheme(page, LIGHT, card);

  await themeRadio(page, 'Dark').check();
  await expectTheme(page, DARK, card);
  expect(await themeColors(page)).toEqual([DARK.bar, DARK.bar]);
  expect(await page.evaluate(() => localStorage.getItem('parley:theme'))).toBe('dark');

  await page.reload();
  await expect(themeRadio(page, 'Dark')).toBeChecked();
  await expectTheme(page, DARK, card);
  // The system changing does not matter while a theme is chosen.
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.emulateMedia({ colorScheme: 'light' });
  await expectTheme(page, DARK, card);

  // Back to System: light again, with the system.
  await themeRadio(page, 'System').check();
  await expectTheme(page, LIGHT, card);
});

test('Light in Settings overrides a dark system, and is remembered across a reload', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  const card = page.getByRole('group', { name: 'Theme' });
  await signInNewUser(page, 'dark');
  await page.goto('/settings');
  await expect(themeRadio(page, 'System')).toBeChecked();
  await expectTheme(page, DARK, card);

  // The keyboard: arrow keys move between the radios.
  await themeRadio(page, 'System').focus();
  await page.keyboard.press('ArrowRight');
  await expect(themeRadio(page, 'Light')).toBeChecked();
  await expectTheme(page, LIGHT, card);
  expect(await themeColors(page)).toEqual([LIGHT.bar, LIGHT.bar]);

  await page.reload();
  await expect(themeRadio(page, 'Light')).toBeChecked();
  await expectTheme(page, LIGHT, card);
  await shotSizes(page, 'settings-light', async () => {
    await expect(themeRadio(page, 'Light')).toBeChecked();
  });
  await page.goto('/welcome');
  await expectTheme(page, LIGHT, page.locator('main'));
});

test('the signed-out screens in dark: readable, at both sizes', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/welcome');
  await shotSizes(page, 'welcome-dark', async () => {
    await expect(page.getByRole('heading', { level: 1, name: /^Welcome to/ })).toBeVisible();
    await expectReadable(page);
  });
  await page.getByRole('button', { name: 'Next' }).click();
  await shotSizes(page, 'welcome-2-dark', async () => {
    await expect(page.getByRole('heading', { level: 1, name: /^Why/ })).toBeVisible();
    await expectReadable(page);
  });
  await page.goto('/signin');
  await shotSizes(page, 'signin-dark', async () => {
    await expect(page.getByRole('button', { name: 'Sign In', exact: true })).toBeVisible();
    await expectReadable(page);
  });
  // An error toast (Sonner, given the theme) on the dark page.
  await shotSizes(page, 'signin-toast-dark', async () => {
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await expectToast(page, 'Sign In Failed', undefined, 'error');
    await expectReadable(page);
  });
});

test('the signed-in screens in dark: readable, at both sizes', async ({ people }) => {
  test.setTimeout(240_000);
  const alice = await people.person('alice');
  const bob = await people.person('bob');
  const a = alice.page;
  await a.emulateMedia({ colorScheme: 'dark' });

  await openChat(a, bob);
  await openChat(bob.page, alice);
  await send(bob.page, 'Hey Alice! Dinner tonight?');
  await send(a, 'Yes please, 8 works for me');
  await send(bob.page, 'Great, I will book the table by the window. See you there!');
  await expect(tick(bubble(a, 'Yes please, 8 works for me'), 'Read')).toBeVisible();
  await expect(bubble(a, 'Great, I will book the table by the window. See you there!')).toBeVisible();
  await shotSizes(a, 'chat-conversation-dark', async () => {
    await expect(bubble(a, 'Great, I will book the table by the window. See you there!')).toBeInViewport();
    await expectReadable(a);
  });
  await expect(bubble(a, 'Hey Alice! Dinner tonight?')).toHaveCSS('background-color', 'rgb(30, 41, 59)');
  await expect(bubble(a, 'Yes please, 8 works for me')).toHaveCSS('background-color', 'rgb(67, 56, 202)');

  await a.goto('/home');
  await shotSizes(a, 'chat-home-dark', async () => {
    await expect(chatRow(a, bob.handle)).toBeVisible();
    await expectReadable(a);
  });

  await a.goto('/settings');
  await shotSizes(a, 'settings-dark', async () => {
    await expect(themeRadio(a, 'System')).toBeChecked();
    await expectReadable(a);
  });

  await a.goto('/account');
  await shotSizes(a, 'account-dark', async () => {
    await expect(a.getByRole('heading', { level: 1, name: 'Account' })).toBeVisible();
    await expectReadable(a);
  });
  const dialog = a.getByRole('alertdialog').or(a.getByRole('dialog'));
  await shotSizes(a, 'account-delete-dialog-dark', async () => {
    if (!(await dialog.isVisible())) await a.getByRole('button', { name: 'Delete Account' }).click();
    await expect(dialog.getByRole('heading')).toHaveText('Are you absolutely sure?');
    await a.evaluate(() => window.scrollTo(0, 0)); // a full-page shot of a fixed overlay: from the top
    await expectReadable(a);
  });
});

test('the contrast check finds text that is too faint', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/welcome');
  await expect(page.getByRole('heading', { level: 1, name: /^Welcome to/ })).toBeVisible();
  await page.evaluate(() => {
    const p = document.createElement('p');
    p.textContent = 'Faint slate-700 text';
    p.style.color = '#334155';
    document.querySelector('main')?.append(p);
  });
  expect(await contrastProblems(page)).toEqual([
    expect.objectContaining({ text: 'Faint slate-700 text', needed: 4.5, background: DARK.card }),
  ]);
});

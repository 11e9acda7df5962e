/**
 * The profile screen (spec section 2 "Profile", section 5 validation, section 8 "Update
 * Failed" / "Profile Updated"): current values, read-only username and e-mail, the sign-up
 * validation messages, picture URLs (http(s) only, previewed), the Upload link, and a
 * new name and picture reaching the other side of a chat live.
 */
import type { BrowserContext, Page } from '@playwright/test';
import { chatRow, test as chatTest, openChat, send, shotSizes } from './chat-helpers.ts';
import { expect, test } from './fixtures.ts';
import { expectNoSidewaysScroll, signInNewUser } from './screen-helpers.ts';

/** A 1x1 PNG: what the fake picture host below answers. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
/** A portrait-like picture for the screenshots. */
const SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 96">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#818cf8"/><stop offset="1" stop-color="#0ea5e9"/></linearGradient></defs>
<rect width="96" height="96" fill="url(#g)"/><circle cx="48" cy="38" r="17" fill="#e0e7ff"/><ellipse cx="48" cy="88" rx="32" ry="26" fill="#e0e7ff"/></svg>`;
const PICTURES = 'https://pics.parley.test';

/** Serves every picture under PICTURES from the test (.svg as SVG, others as PNG), so no page reaches the internet. */
async function servePictures(context: BrowserContext): Promise<void> {
  await context.route(`${PICTURES}/**`, (route) =>
    route.request().url().endsWith('.svg')
      ? route.fulfill({ status: 200, contentType: 'image/svg+xml', body: SVG })
      : route.fulfill({ status: 200, contentType: 'image/png', body: PNG }),
  );
}

/** Before a screenshot: the top of the page, and no sideways scrolling on the phone. */
async function readyForShot(page: Page): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  if (page.viewportSize()?.width === 390) await expectNoSidewaysScroll(page);
}

/** The fields, by their labels. */
function fields(page: Page) {
  return {
    picture: page.getByLabel('Picture URL', { exact: true }),
    name: page.getByLabel('Full Name', { exact: true }),
    phone: page.getByLabel('Phone Number', { exact: true }),
    age: page.getByLabel('Age', { exact: true }),
    username: page.getByLabel('Username', { exact: true }),
    email: page.getByLabel('Email', { exact: true }),
    save: page.getByRole('button', { name: 'Save Changes' }),
  };
}

/** The round preview next to the picture URL. */
function preview(page: Page) {
  return page.getByRole('img', { name: /^(Profile picture preview|No profile picture)$/ });
}

/** The toast with this title. */
function toast(page: Page, title: string) {
  return page.locator('[data-sonner-toast]').filter({ hasText: title });
}

/** Counts the profile saves the page sends. */
function countSaves(page: Page): () => number {
  let n = 0;
  page.on('request', (r) => {
    if (r.method() === 'PUT' && new URL(r.url()).pathname === '/api/me/profile') n += 1;
  });
  return () => n;
}

test.describe('profile', () => {
  test('shows the current values; username and e-mail are read-only', async ({ page }) => {
    const user = await signInNewUser(page, 'prof');
    await page.goto('/settings');
    await page.getByRole('link', { name: 'Profile' }).click();
    await expect(page).toHaveURL(/\/profile$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Profile' })).toBeVisible();

    const f = fields(page);
    await expect(f.name).toHaveValue(user.name);
    await expect(f.phone).toHaveValue(user.phone);
    await expect(f.age).toHaveValue(String(user.age));
    await expect(f.picture).toHaveValue('');
    await expect(preview(page)).toHaveAccessibleName('No profile picture');
    await expect(preview(page)).toHaveText(user.name.charAt(0));
    for (const input of [f.name, f.phone, f.age, f.picture]) await expect(input).toBeEditable();

    await expect(f.username).toHaveValue(`@${user.username}`);
    await expect(f.username).not.toBeEditable();
    await expect(f.username).toHaveAccessibleDescription(/cannot be changed/);
    await expect(f.email).toHaveValue(user.email);
    await expect(f.email).not.toBeEditable();
    await expect(f.email).toHaveAccessibleDescription('Change it under Account');
    await expect(page.getByRole('main').getByRole('link', { name: 'Account', exact: true })).toHaveAttribute(
      'href',
      '/account',
    );

    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page).toHaveURL(/\/settings$/);
  });

  test('refuses what sign-up refuses, with the same messages, and saves nothing', async ({ page }) => {
    const user = await signInNewUser(page, 'prof');
    const saves = countSaves(page);
    await page.goto('/profile');
    const f = fields(page);
    await expect(f.name).toHaveValue(user.name);

    await f.name.fill('A');
    await f.phone.fill('12345');
    await f.age.fill('12');
    await f.save.click();
    await expect(f.name).toHaveAccessibleDescription('Name must be at least 2 characters');
    await expect(f.phone).toHaveAccessibleDescription('Invalid phone number');
    await expect(f.age).toHaveAccessibleDescription('Age must be between 13 and 120');
    for (const input of [f.name, f.phone, f.age]) await expect(input).toHaveAttribute('aria-invalid', 'true');
    await expect(f.name).toBeFocused();
    await expect(toast(page, 'Update Failed')).toContainText('Name must be at least 2 characters');

    // Correcting a field clears its message; the others stay until the next save.
    await f.name.fill('Al');
    await expect(f.name).not.toHaveAttribute('aria-invalid', 'true');
    await f.phone.fill('5551234567');
    await f.age.fill('121');
    await f.save.click();
    await expect(f.age).toHaveAccessibleDescription('Age must be between 13 and 120');
    await expect(f.age).toBeFocused();
    await f.age.fill('');
    await f.save.click();
    await expect(f.age).toHaveAccessibleDescription('Age must be between 13 and 120');

    expect(saves()).toBe(0);
    await page.reload();
    await expect(f.name).toHaveValue(user.name);
    await expect(f.age).toHaveValue(String(user.age));
  });

  test('a javascript: picture URL is refused, never becomes an image and runs nothing', async ({ page }) => {
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(`${d.type()}: ${d.message()}`);
      void d.dismiss();
    });
    const user = await signInNewUser(page, 'prof');
    const saves = countSaves(page);
    await page.goto('/profile');
    const f = fields(page);
    await expect(f.name).toHaveValue(user.name);

    await f.picture.fill('javascript:alert(1)');
    await f.picture.blur();
    await expect(f.picture).toHaveAccessibleDescription('Picture URL must start with http:// or https://');
    await expect(preview(page)).toHaveAccessibleName('No profile picture');
    await expect(preview(page)).toHaveText(user.name.charAt(0));

    await f.save.click();
    await expect(toast(page, 'Update Failed')).toContainText('Picture URL must start with http:// or https://');
    await expect(f.picture).toBeFocused();
    await expect(page.locator('img')).toHaveCount(0);
    await expect(page.locator('[src^="javascript:" i], [href^="javascript:" i]')).toHaveCount(0);
    expect(saves()).toBe(0);

    // The server refuses it too, whatever the browser does.
    const res = await page.request.put('/api/me/profile', {
      data: { name: user.name, phone: user.phone, age: user.age, profilePic: 'javascript:alert(1)' },
    });
    expect(res.status()).toBe(400);
    expect((await res.json()).message).toBe('Picture URL must start with http:// or https://');

    await page.reload();
    await expect(f.picture).toHaveValue('');
    await page.goto('/settings');
    await expect(page.getByText(`@${user.username}`)).toBeVisible();
    await expect(page.locator('img')).toHaveCount(0);
    expect(dialogs).toEqual([]);
  });

  test('an https picture is previewed as typed, saved, and shown on /settings', async ({ page, context }) => {
    await servePictures(context);
    const user = await signInNewUser(page, 'prof');
    await page.goto('/profile');
    const f = fields(page);
    await expect(f.name).toHaveValue(user.name);

    const url = `${PICTURES}/me.png`;
    await f.picture.fill(url);
    await expect(preview(page)).toHaveAccessibleName('Profile picture preview');
    await expect(preview(page).locator('img')).toHaveAttribute('src', url);
    await expect(f.picture).not.toHaveAttribute('aria-invalid', 'true');

    // 'Saving...' while the server answers.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/api/me/profile', async (route) => {
      await held;
      await route.continue();
    });
    await f.name.fill('  Renamed Person  ');
    await f.save.click();
    const saving = page.getByRole('button', { name: 'Saving...' });
    await expect(saving).toBeDisabled();
    release();
    await expect(toast(page, 'Profile Updated')).toBeVisible();
    await expect(f.save).toBeEnabled();
    await expect(f.name).toHaveValue('Renamed Person');

    await page.reload();
    await expect(f.picture).toHaveValue(url);
    await expect(f.name).toHaveValue('Renamed Person');
    await expect(preview(page).locator('img')).toHaveAttribute('src', url);

    await page.goto('/settings');
    await expect(page.getByText('Renamed Person', { exact: true })).toBeVisible();
    await expect(page.locator(`img[src="${url}"]`)).toBeVisible();

    // Clearing the URL goes back to the initial.
    await page.goto('/profile');
    await f.picture.fill('');
    await f.save.click();
    await expect(toast(page, 'Profile Updated')).toBeVisible();
    await expect(preview(page)).toHaveText('R');
    await page.reload();
    await expect(f.picture).toHaveValue('');
  });

  test('Upload opens the upload site in a new tab', async ({ page, context }) => {
    await context.route('https://postimages.org/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/plain', body: 'ok' }),
    );
    await signInNewUser(page, 'prof');
    await page.goto('/profile');
    const upload = page.getByRole('link', { name: /^Upload/ });
    await expect(upload).toHaveAttribute('href', 'https://postimages.org/');
    await expect(upload).toHaveAttribute('target', '_blank');
    await expect(upload).toHaveAttribute('rel', /\bnoopener\b/);
    await expect(upload).toHaveAttribute('rel', /\bnoreferrer\b/);

    const [tab] = await Promise.all([context.waitForEvent('page'), upload.click()]);
    await expect(tab).toHaveURL('https://postimages.org/');
    await expect(page).toHaveURL(/\/profile$/);
    await tab.close();
  });

  test('sends a signed-out visitor to /signin', async ({ page }) => {
    await page.goto('/profile');
    await expect(page).toHaveURL(/\/signin\?next=%2Fprofile$/);
  });

  test('screenshots at 1280 and 390 px, without sideways scrolling on the phone', async ({ page, context }) => {
    await servePictures(context);
    await signInNewUser(page, 'prof');
    await page.goto('/profile');
    const f = fields(page);
    await f.picture.fill(`${PICTURES}/portrait.svg`);
    await expect(preview(page).locator('img')).toBeVisible();
    await shotSizes(page, 'profile', () => readyForShot(page));

    await f.picture.fill('javascript:alert(1)');
    await f.age.fill('12');
    await f.save.click();
    await expect(f.age).toHaveAccessibleDescription('Age must be between 13 and 120');
    // The field focused after the failed save is not hidden under the sticky header.
    await expect(f.picture).toBeFocused();
    const header = await page.getByRole('banner').boundingBox();
    const input = await f.picture.boundingBox();
    if (!header || !input) throw new Error('not laid out');
    expect(input.y).toBeGreaterThanOrEqual(header.y + header.height);
    await shotSizes(page, 'profile-errors', () => readyForShot(page));
  });
});

chatTest.describe('profile, seen by someone else', () => {
  chatTest('a new name and picture reach the other side of a chat live', async ({ people }) => {
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    await servePictures(alice.context);
    await servePictures(bob.context);

    await openChat(alice.page, bob);
    await send(alice.page, 'New picture soon');

    // Bob watches his chat list in one tab and the contacts list in another.
    const home = bob.page;
    await home.goto('/home');
    const row = chatRow(home, alice.handle);
    await expect(row).toContainText('New picture soon');
    await expect(row.locator('img')).toHaveCount(0);

    const contacts = await bob.context.newPage();
    await contacts.goto('/contacts');
    await contacts.getByRole('searchbox', { name: 'Search by username' }).fill(alice.user.username);
    const contact = contacts.getByRole('list', { name: 'Users' }).getByRole('link', { name: alice.handle });
    await expect(contact).toContainText(alice.user.name);
    await expect(contact.locator('img')).toHaveCount(0);

    const url = `${PICTURES}/alice.png`;
    await alice.page.goto('/profile');
    const f = fields(alice.page);
    await f.name.fill('Alicia Newname');
    await f.picture.fill(url);
    await f.save.click();
    await expect(toast(alice.page, 'Profile Updated')).toBeVisible();

    // Without a reload on Bob's side.
    await expect(row.locator('img')).toHaveAttribute('src', url);
    await expect(contact).toContainText('Alicia Newname');
    await expect(contact.locator('img')).toHaveAttribute('src', url);
    await expect(home).toHaveURL(/\/home$/);
  });
});

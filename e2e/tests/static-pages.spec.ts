/**
 * The static screens: Terms, Privacy Policy, About and the not-found page
 * (spec section 2 "Terms and Privacy Policy", "About", "Not found").
 */
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';

/** A numbered policy section, found by its heading (each section is labelled by it). */
function section(page: Page, title: RegExp) {
  return page.getByRole('region', { name: title });
}

test.describe('terms', () => {
  test('has the six sections, with the minimum age under Accounts', async ({ page }) => {
    await page.goto('/terms');
    await expect(page.getByRole('heading', { level: 1, name: 'Terms of Service' })).toBeVisible();
    const titles = [/Acceptance/, /Accounts/, /Conduct/, /Privacy/, /Termination/, /Changes/];
    for (const title of titles) {
      await expect(page.getByRole('heading', { level: 2, name: title })).toBeVisible();
    }
    // In this order.
    await expect(page.getByRole('heading', { level: 2 })).toHaveText(titles);
    await expect(section(page, /Accounts/)).toContainText(/at least 13 years old/);
    await expect(section(page, /Acceptance/).getByRole('link', { name: 'Privacy Policy' })).toHaveAttribute(
      'href',
      '/privacy',
    );
  });

  test('Back returns to /signup when opened from the sign-up link', async ({ page }) => {
    await page.goto('/signup');
    await page.getByRole('link', { name: 'Terms of Service' }).click();
    await expect(page).toHaveURL(/\/terms$/);
    await expect(page.getByRole('heading', { name: 'Terms of Service' })).toBeVisible();
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page).toHaveURL(/\/signup$/);
    await expect(page.getByRole('button', { name: 'Sign Up' })).toBeVisible();
  });

  test('Back returns to /about when that was the previous page', async ({ page }) => {
    await page.goto('/about');
    await expect(page.getByText('Version 1.0.0')).toBeVisible();
    await page.goto('/terms');
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page).toHaveURL(/\/about$/);
    await expect(page.getByText('Version 1.0.0')).toBeVisible();
  });
});

test.describe('privacy policy', () => {
  test('has the seven sections with what is collected and that data is not sold', async ({ page }) => {
    await page.goto('/privacy');
    await expect(page.getByRole('heading', { level: 1, name: 'Privacy Policy' })).toBeVisible();
    const titles = [/Information/, /Use/, /Sharing/, /Security/, /Rights/, /Changes/, /Contact/];
    await expect(page.getByRole('heading', { level: 2 })).toHaveText(titles);

    const collected = section(page, /Information/);
    for (const item of [/\bname\b/, /e-?mail/, /phone/, /\bage\b/, /username/]) {
      await expect(collected).toContainText(item);
    }
    await expect(section(page, /Sharing/)).toContainText(/not sold/);
    for (const title of [/Use/, /Security/, /Rights/, /Changes/, /Contact/]) {
      await expect(section(page, title)).toBeVisible();
    }
  });

  test('Back returns to /signup when opened from the sign-up link', async ({ page }) => {
    await page.goto('/signup');
    await page.getByRole('link', { name: 'Privacy Policy' }).click();
    await expect(page).toHaveURL(/\/privacy$/);
    await expect(page.getByRole('heading', { name: 'Privacy Policy' })).toBeVisible();
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page).toHaveURL(/\/signup$/);
  });

  test('Back returns to /about when that was the previous page', async ({ page }) => {
    await page.goto('/about');
    await expect(page.getByText('Version 1.0.0')).toBeVisible();
    await page.goto('/privacy');
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page).toHaveURL(/\/about$/);
  });

  test('links between terms and privacy, and Back walks the history', async ({ page }) => {
    await page.goto('/terms');
    await section(page, /Privacy/)
      .getByRole('link', { name: 'Privacy Policy' })
      .click();
    await expect(page).toHaveURL(/\/privacy$/);
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page).toHaveURL(/\/terms$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Terms of Service' })).toBeVisible();
  });
});

test.describe('about', () => {
  test('shows name, maker, version, mission, the three features and 2024', async ({ page }) => {
    await page.goto('/about');
    await expect(page.getByRole('heading', { name: 'Parley', exact: true })).toBeVisible();
    await expect(page.getByText('by Parley Labs')).toBeVisible();
    await expect(page.getByText('Version 1.0.0')).toBeVisible();
    const mission = page.getByRole('region', { name: 'Our Mission' });
    await expect(mission).toBeVisible();
    await expect(mission).toContainText(/connect/i);
    for (const feature of ['Secure & Private', 'Real-time Messaging', 'Connect with Anyone']) {
      await expect(page.getByRole('heading', { name: feature })).toBeVisible();
    }
    await expect(page.getByText(/©\s*2024/)).toBeVisible();
  });
});

test.describe('not found', () => {
  for (const path of ['/no-such-page', '/a/b/c']) {
    test(`${path} shows the 404 page and Return to Home goes to /`, async ({ page }) => {
      const response = await page.goto(path);
      // The server hands every non-API GET to the app, which draws its own 404.
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-type']).toContain('text/html');
      await expect(page.getByText('404', { exact: true })).toBeVisible();
      await expect(page.getByRole('heading', { name: 'Oops! Page not found' })).toBeVisible();
      await page.getByRole('link', { name: 'Return to Home' }).click();
      await expect(page).toHaveURL(/127\.0\.0\.1:\d+\/$/);
      await expect(page.getByRole('heading', { name: 'Parley' })).toBeVisible();
    });
  }

  test('an unknown API path is a JSON 404, not the app', async ({ request }) => {
    const res = await request.get('/api/no-such-endpoint');
    expect(res.status()).toBe(404);
    expect(res.headers()['content-type']).toContain('application/json');
  });
});

/**
 * Helpers for the sign-up, sign-in, e-mail and account tests: the forms filled the way
 * a person would, toasts, and moderation done straight in the database (no admin UI yet).
 */
import path from 'node:path';
import type { APIRequestContext, Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { E2E_BASE_URL, E2E_DATA_DIR } from '../env.ts';
import { apiSignInBody } from './api-accounts.ts';
import { expect, type NewUser, shot } from './fixtures.ts';

export const VERIFY_SUBJECT = /Verify your e-mail/;
export const RESET_SUBJECT = /Reset your .* password/;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A toast with exactly this title (and description, when given) is on screen. */
export async function expectToast(
  page: Page,
  title: string,
  description?: string,
  kind?: 'success' | 'error',
): Promise<void> {
  let toast = page
    .locator('[data-sonner-toast]')
    .filter({ has: page.locator('[data-title]', { hasText: new RegExp(`^${escapeRegExp(title)}$`) }) });
  if (description !== undefined) {
    toast = toast.filter({
      has: page.locator('[data-description]', { hasText: new RegExp(`^${escapeRegExp(description)}$`) }),
    });
  }
  await expect(toast.first()).toBeVisible();
  if (kind) await expect(toast.first()).toHaveAttribute('data-type', kind);
}

/** Fills every sign-up field; ticks the agreement box unless told not to. */
export async function fillSignUp(page: Page, user: NewUser, { agree = true } = {}): Promise<void> {
  await page.locator('#signup-name').fill(user.name);
  await page.locator('#signup-phone').fill(user.phone);
  await page.locator('#signup-age').fill(String(user.age));
  await page.locator('#signup-username').fill(user.username);
  await page.locator('#signup-email').fill(user.email);
  await page.locator('#signup-password').fill(user.password);
  const box = page.getByRole('checkbox', { name: /I agree to the/ });
  if (agree) await box.check();
  else await expect(box).not.toBeChecked();
}

/** Fills the sign-in form and presses Sign In. */
export async function submitSignIn(page: Page, login: string, password: string): Promise<void> {
  await page.locator('#signin-login').fill(login);
  await page.locator('#signin-password').fill(password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
}

/** The HTTP status of a sign-in attempt made outside any page. */
export async function apiSignInStatus(request: APIRequestContext, login: string, password: string): Promise<number> {
  const data = await apiSignInBody(E2E_BASE_URL, login, password, false);
  const res = await request.post(`${E2E_BASE_URL}/api/auth/signin`, { data });
  return res.status();
}

/** Blocks an account as the administrator would, writing the flag in the server's SQLite file. */
export function blockUser(username: string): void {
  const db = new Database(path.join(E2E_DATA_DIR, 'parley.sqlite'));
  try {
    db.pragma('busy_timeout = 5000');
    const r = db.prepare('UPDATE users SET blocked = 1 WHERE username_lower = ?').run(username.toLowerCase());
    expect(r.changes, `blocked ${username}`).toBe(1);
  } finally {
    db.close();
  }
}

/**
 * Takes the same screenshot at the default width and at a 390x844 phone size. Toasts are
 * closed first (the tests assert them) and the page is scrolled to the top, so a full-page
 * shot of an open dialog is not cut by the fixed overlay.
 */
export async function shotBoth(page: Page, name: string): Promise<void> {
  await page.evaluate(() => {
    for (const b of document.querySelectorAll<HTMLButtonElement>(
      '[data-sonner-toast] button[aria-label="Close toast"]',
    )) {
      b.click();
    }
    window.scrollTo(0, 0);
  });
  await expect(page.locator('[data-sonner-toast]')).toHaveCount(0);
  const before = page.viewportSize();
  await shot(page, name);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, name);
  if (before) await page.setViewportSize(before);
}

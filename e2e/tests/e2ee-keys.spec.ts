/**
 * End-to-end encryption, the account keys (issue 14): the password never leaves the
 * browser, every browser that signs in holds the same keys, a password change keeps
 * them, sign-out wipes them, and a reset re-seals them silently in a browser that still
 * has them, or starts a new identity in one that does not.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from '@playwright/test';
import { E2E_DATA_DIR } from '../env.ts';
import { expectToast, fillSignUp, RESET_SUBJECT, submitSignIn } from './auth-helpers.ts';
import { createUserViaApi, expect, linkFromMail, makeUser, type NewUser, test } from './fixtures.ts';

interface OwnKeys {
  publicKeys: { ik: string; ukEpoch: number };
  bundleVersion: number;
  idVersion: number;
  stale: boolean;
}

async function ownKeys(page: Page): Promise<OwnKeys> {
  const res = await page.request.get('/api/me/keys');
  expect(res.status()).toBe(200);
  return (await res.json()).keys;
}

async function localKeyStores(page: Page): Promise<string[]> {
  return page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name ?? ''));
}

/** Signs in through the form in a new browser context; fails on any request carrying the password. */
async function signInFresh(browser: Browser, user: NewUser, password = user.password) {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on('request', (r) => {
    expect(r.postData() ?? '', `${r.url()} carries the password`).not.toContain(password);
  });
  await page.goto('/signin');
  await submitSignIn(page, user.email, password);
  await expectToast(page, 'Welcome Back!', 'Successfully signed in');
  await expect(page).toHaveURL(/\/home$/);
  await expect.poll(() => localKeyStores(page)).toContain('parley-keys');
  return { context, page };
}

function databaseBytes(): Buffer {
  const file = path.join(E2E_DATA_DIR, 'parley.sqlite');
  return Buffer.concat([file, `${file}-wal`].map((f) => readFileSync(f)));
}

test.describe('account keys', () => {
  test('sign-up sends no password; a second browser opens the same keys; a password change keeps them; sign-out wipes them', async ({
    page,
    browser,
  }) => {
    const user = makeUser('kk');
    page.on('request', (r) => {
      expect(r.postData() ?? '', `${r.url()} carries the password`).not.toContain(user.password);
    });
    await page.goto('/signup');
    await fillSignUp(page, user);
    await page.getByRole('button', { name: 'Sign Up', exact: true }).click();
    await expectToast(page, 'Account Created!', 'Please check your email to verify your account');
    await expect.poll(() => localKeyStores(page)).toContain('parley-keys');
    const first = await ownKeys(page);
    expect(first).toMatchObject({ bundleVersion: 1, idVersion: 1, stale: false, publicKeys: { ukEpoch: 1 } });
    expect(databaseBytes().includes(Buffer.from(user.password))).toBe(false);

    const second = await signInFresh(browser, user);
    expect((await ownKeys(second.page)).publicKeys.ik).toBe(first.publicKeys.ik);

    await second.page.goto('/account');
    const form = second.page.getByRole('region', { name: 'Change Password' });
    await expect(form).toContainText('Your password protects your encryption keys. Changing it keeps them.');
    const newPassword = 'changed-secret-7';
    await form.locator('#account-current-password').fill(user.password);
    await form.locator('#account-new-password').fill(newPassword);
    await form.getByRole('button', { name: 'Update Password' }).click();
    await expectToast(second.page, 'Password Updated', undefined, 'success');
    const changed = await ownKeys(second.page);
    expect(changed).toMatchObject({ bundleVersion: 2, idVersion: 1, stale: false });
    expect(changed.publicKeys).toEqual(first.publicKeys);

    const third = await signInFresh(browser, user, newPassword);
    expect((await ownKeys(third.page)).publicKeys).toEqual(first.publicKeys);
    await third.page.goto('/account');
    await third.page.getByRole('button', { name: 'Logout' }).click();
    await expect(third.page).toHaveURL(/\/signin$/);
    await expect.poll(() => localKeyStores(third.page)).not.toContain('parley-keys');
    await second.context.close();
    await third.context.close();
  });

  test('a reset re-seals the keys in a browser that has them; a fresh browser starts a new identity', async ({
    page,
    browser,
    request,
  }) => {
    const user = makeUser('kr');
    await createUserViaApi(request, user);
    const holder = await signInFresh(browser, user);
    const before = await ownKeys(holder.page);

    // Reset by e-mail (in another tab: the link is all it takes); the reset page says what it does.
    expect((await request.post('/api/auth/forgot-password', { data: { email: user.email } })).status()).toBe(204);
    await page.goto(await linkFromMail(user.email, RESET_SUBJECT, '/reset-password'));
    await expect(page.getByText('a browser you used before keeps them')).toBeVisible();
    const reset1 = 'reset-secret-1';
    await page.locator('#reset-password').fill(reset1);
    await page.getByRole('button', { name: 'Reset Password' }).click();
    await expectToast(page, 'Password Reset', 'Sign in with your new password', 'success');

    // The browser that held the keys signs in again: same identity, re-sealed, nothing locked.
    await holder.page.goto('/signin');
    await submitSignIn(holder.page, user.email, reset1);
    await expectToast(holder.page, 'Welcome Back!', 'Successfully signed in');
    await expect(holder.page).toHaveURL(/\/home$/);
    await expect.poll(async () => (await ownKeys(holder.page)).stale).toBe(false);
    const resealed = await ownKeys(holder.page);
    expect(resealed.publicKeys).toEqual(before.publicKeys);
    expect(resealed).toMatchObject({ idVersion: 1, bundleVersion: before.bundleVersion + 1 });
    await holder.context.close();

    // A second reset, then a browser that never had the keys: a new identity, one epoch further.
    const used = await linkFromMail(user.email, RESET_SUBJECT, '/reset-password');
    expect((await request.post('/api/auth/forgot-password', { data: { email: user.email } })).status()).toBe(204);
    await expect.poll(() => linkFromMail(user.email, RESET_SUBJECT, '/reset-password')).not.toBe(used);
    await page.goto(await linkFromMail(user.email, RESET_SUBJECT, '/reset-password'));
    const reset2 = 'reset-secret-2';
    await page.locator('#reset-password').fill(reset2);
    await page.getByRole('button', { name: 'Reset Password' }).click();
    await expectToast(page, 'Password Reset', 'Sign in with your new password', 'success');
    const fresh = await signInFresh(browser, user, reset2);
    await expect.poll(async () => (await ownKeys(fresh.page)).stale).toBe(false);
    const renewed = await ownKeys(fresh.page);
    expect(renewed.publicKeys.ik).not.toBe(before.publicKeys.ik);
    expect(renewed).toMatchObject({ idVersion: 2, publicKeys: { ukEpoch: before.publicKeys.ukEpoch + 1 } });
    await fresh.context.close();
  });
});

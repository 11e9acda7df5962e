/** E-mail verification (banner, resend, link) and the forgotten-password flow, through the outbox. */
import { readOutbox } from '@app/server/test';
import { E2E_DATA_DIR } from '../env.ts';
import { apiSignInStatus, expectToast, RESET_SUBJECT, shotBoth, submitSignIn, VERIFY_SUBJECT } from './auth-helpers.ts';
import { createUserViaApi, expect, linkFromMail, makeUser, signInViaApi, test } from './fixtures.ts';

function verifyMailsTo(email: string): string[] {
  return readOutbox(E2E_DATA_DIR)
    .filter((m) => m.to.includes(email) && VERIFY_SUBJECT.test(m.subject))
    .map((m) => m.file);
}

test.describe('e-mail verification', () => {
  test("the banner's Resend email sends a new mail, whose link verifies and hides the banner", async ({
    page,
    request,
  }) => {
    const user = makeUser('ev');
    await createUserViaApi(request, user);
    await expect.poll(() => verifyMailsTo(user.email).length).toBe(1);
    await signInViaApi(page, user.email, user.password);
    await page.goto('/home');
    const banner = page.getByRole('status').filter({ hasText: 'Please verify your e-mail address' });
    await expect(banner).toContainText(user.email);

    await banner.getByRole('button', { name: 'Resend email' }).click();
    await expectToast(page, 'Verification Email Sent', `Check ${user.email} for the link`, 'success');
    await expect.poll(() => verifyMailsTo(user.email).length).toBe(2);

    const link = await linkFromMail(user.email, VERIFY_SUBJECT, '/verify-email');
    await page.goto(link);
    await expect(page.getByRole('heading', { name: 'Email Verified' })).toBeVisible();
    await expect(page.getByText('Your e-mail address is confirmed. You are all set.')).toBeVisible();
    await expect(page.getByText('Please verify your e-mail address')).toHaveCount(0);
    await shotBoth(page, 'verify-email-verified');

    await page.getByRole('link', { name: 'Continue' }).click();
    await expect(page).toHaveURL(/\/home$/);
    await expect(page.getByRole('link', { name: 'Notifications' })).toBeVisible();
    await expect(page.getByText('Please verify your e-mail address')).toHaveCount(0);
    await page.reload();
    await expect(page.getByRole('link', { name: 'Notifications' })).toBeVisible();
    await expect(page.getByText('Please verify your e-mail address')).toHaveCount(0);

    // The same link a second time.
    await page.goto(link);
    await expect(page.getByText('This link is invalid or has expired')).toBeVisible();
    await expect(page.getByText('Your e-mail address is already verified.')).toBeVisible();
  });

  test('a signed-out visitor can verify, and a used or garbage link is refused', async ({ page, request }) => {
    const user = makeUser('eg');
    await createUserViaApi(request, user);
    const link = await linkFromMail(user.email, VERIFY_SUBJECT, '/verify-email');

    await page.goto(link);
    await expect(page.getByRole('heading', { name: 'Email Verified' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Continue to Sign In' })).toBeVisible();

    await page.goto(link);
    await expect(page.getByRole('alert')).toContainText('This link is invalid or has expired');
    await expect(page.getByRole('heading', { name: 'Email Verified' })).toHaveCount(0);

    await page.goto('/verify-email?token=garbage');
    await expect(page.getByRole('alert')).toContainText('This link is invalid or has expired');
    await page.goto(`/verify-email?token=${'x'.repeat(43)}`);
    await expect(page.getByRole('alert')).toContainText('This link is invalid or has expired');
    await shotBoth(page, 'verify-email-invalid');
    await page.getByRole('link', { name: 'Go to Sign In' }).click();
    await expect(page).toHaveURL(/\/signin$/);
  });
});

test.describe('forgotten password', () => {
  test('reset through the mailed link: the new password works, the old one fails', async ({ page, request }) => {
    const user = makeUser('fp');
    const newPassword = 'brand-new-secret-2';
    await createUserViaApi(request, user);

    await page.goto('/signin');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await expect(page).toHaveURL(/\/forgot-password$/);
    await expect(page.getByRole('heading', { name: 'Forgot Password' })).toBeVisible();
    await page.getByRole('button', { name: 'Send Reset Link' }).click();
    await expect(page.locator('#forgot-email-error')).toHaveText('Please fill in all fields');
    await page.locator('#forgot-email').fill('nope');
    await page.getByRole('button', { name: 'Send Reset Link' }).click();
    await expect(page.locator('#forgot-email-error')).toHaveText('Invalid email address');
    await page.locator('#forgot-email').fill(user.email);
    await shotBoth(page, 'forgot-password');
    await page.getByRole('button', { name: 'Send Reset Link' }).click();

    await expect(page.getByRole('heading', { name: 'Check Your Email' })).toBeVisible();
    await expect(
      page.getByText('If an account exists for that address, we sent a link to reset your password.'),
    ).toBeVisible();
    await shotBoth(page, 'forgot-password-sent');

    await page.goto(await linkFromMail(user.email, RESET_SUBJECT, '/reset-password'));
    await expect(page.getByRole('heading', { name: 'Reset Password' })).toBeVisible();
    await page.getByRole('button', { name: 'Reset Password' }).click();
    await expect(page.locator('#reset-password-error')).toHaveText('Password must be at least 6 characters');
    await page.locator('#reset-password').fill(newPassword);
    await shotBoth(page, 'reset-password');
    await page.getByRole('button', { name: 'Reset Password' }).click();

    await expectToast(page, 'Password Reset', 'Sign in with your new password', 'success');
    await expect(page).toHaveURL(/\/signin$/);

    await submitSignIn(page, user.email, user.password);
    await expectToast(page, 'Sign In Failed', 'Invalid credentials', 'error');
    await expect(page).toHaveURL(/\/signin$/);
    await page.locator('#signin-password').fill(newPassword);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await expectToast(page, 'Welcome Back!', 'Successfully signed in');
    await expect(page).toHaveURL(/\/home$/);
    // Following the mailed link proved the address, so there is nothing left to verify.
    await expect(page.getByText('Please verify your e-mail address')).toHaveCount(0);
    expect(await apiSignInStatus(request, user.username, user.password)).toBe(401);
  });

  test('a reset link works once', async ({ page, request }) => {
    const user = makeUser('fo');
    await createUserViaApi(request, user);
    await page.goto('/forgot-password');
    await page.locator('#forgot-email').fill(user.email);
    await page.getByRole('button', { name: 'Send Reset Link' }).click();
    await expect(page.getByRole('heading', { name: 'Check Your Email' })).toBeVisible();
    const link = await linkFromMail(user.email, RESET_SUBJECT, '/reset-password');

    await page.goto(link);
    await page.locator('#reset-password').fill('first-new-pass-3');
    await page.getByRole('button', { name: 'Reset Password' }).click();
    await expect(page).toHaveURL(/\/signin$/);

    await page.goto(link);
    await page.locator('#reset-password').fill('second-new-pass-4');
    await page.getByRole('button', { name: 'Reset Password' }).click();
    await expect(page.getByRole('alert')).toContainText('This link is invalid or has expired');
    await expect(page.getByRole('link', { name: 'Request a new link' })).toBeVisible();
    expect(await apiSignInStatus(request, user.email, 'second-new-pass-4')).toBe(401);
    expect(await apiSignInStatus(request, user.email, 'first-new-pass-3')).toBe(200);
  });
});

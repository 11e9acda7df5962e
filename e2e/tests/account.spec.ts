/** /account: change e-mail, change password (ending other sessions), logout and account deletion. */
import { apiSignInStatus, expectToast, fillSignUp, shotBoth, VERIFY_SUBJECT } from './auth-helpers.ts';
import { expectReadable } from './contrast.ts';
import { createUserViaApi, expect, latestMail, linkFromMail, makeUser, signInViaApi, test } from './fixtures.ts';

test.describe('account', () => {
  test('change e-mail: empty fields, a wrong password, then success with a new verification mail', async ({
    page,
    request,
  }) => {
    const user = makeUser('ae');
    const newEmail = `new.${user.email}`;
    await createUserViaApi(request, user);
    await signInViaApi(page, user.email, user.password);
    // Verify the first address, so the change visibly drops back to "Not verified".
    await page.goto(await linkFromMail(user.email, VERIFY_SUBJECT, '/verify-email'));
    await expect(page.getByRole('heading', { name: 'Email Verified' })).toBeVisible();

    await page.goto('/account');
    await expect(page.getByRole('heading', { name: 'Account', level: 1 })).toBeVisible();
    const current = page.getByRole('region', { name: 'Email', exact: true });
    await expect(current).toContainText(user.email);
    await expect(current.getByText('Verified', { exact: true })).toBeVisible();
    await expectReadable(page, ['light', 'dark']);
    await shotBoth(page, 'account');

    const form = page.getByRole('region', { name: 'Change Email' });
    const submit = form.getByRole('button', { name: 'Update Email' });
    await submit.click();
    await expectToast(page, 'Error', 'Please fill in all fields', 'error');
    await form.locator('#account-new-email').fill(newEmail);
    await submit.click();
    await expectToast(page, 'Error', 'Please fill in all fields', 'error');

    await form.locator('#account-email-password').fill('not-my-password');
    await submit.click();
    await expectToast(page, 'Failed to Update Email', 'The current password is incorrect', 'error');
    await expect(current).toContainText(user.email);

    await form.locator('#account-email-password').fill(user.password);
    await submit.click();
    await expectToast(page, 'Email Updated', 'Please check your new email to verify', 'success');
    await expect(current).toContainText(newEmail);
    await expect(current.getByText('Not verified')).toBeVisible();
    await expect(form.locator('#account-new-email')).toHaveValue('');
    await expect(form.locator('#account-email-password')).toHaveValue('');
    await expect(page.getByRole('status').filter({ hasText: 'Please verify your e-mail address' })).toContainText(
      newEmail,
    );
    const mail = await latestMail(newEmail, VERIFY_SUBJECT);
    expect(mail.links.some((l) => new URL(l).pathname === '/verify-email')).toBe(true);
    expect(await apiSignInStatus(request, newEmail, user.password)).toBe(200);
    expect(await apiSignInStatus(request, user.email, user.password)).toBe(401);
  });

  test('change password: a wrong current one fails; success signs out other browsers', async ({
    page,
    browser,
    request,
  }) => {
    const user = makeUser('ap');
    const newPassword = 'another-secret-9';
    await createUserViaApi(request, user);
    await signInViaApi(page, user.email, user.password);

    const other = await browser.newContext();
    try {
      const otherPage = await other.newPage();
      await signInViaApi(otherPage, user.username, user.password);
      await otherPage.goto('/home');
      await expect(otherPage).toHaveURL(/\/home$/);

      await page.goto('/account');
      const form = page.getByRole('region', { name: 'Change Password' });
      const submit = form.getByRole('button', { name: 'Update Password' });
      await submit.click();
      await expectToast(page, 'Error', 'Please fill in all fields', 'error');

      await form.locator('#account-current-password').fill('not-my-password');
      await form.locator('#account-new-password').fill(newPassword);
      await submit.click();
      await expectToast(page, 'Failed to Update Password', 'The current password is incorrect', 'error');

      await form.locator('#account-current-password').fill(user.password);
      await submit.click();
      await expectToast(page, 'Password Updated', undefined, 'success');
      await expect(form.locator('#account-current-password')).toHaveValue('');

      // This browser stays signed in ...
      await page.reload();
      await expect(page).toHaveURL(/\/account$/);
      await expect(page.getByRole('heading', { name: 'Account', level: 1 })).toBeVisible();
      // ... the other one is signed out.
      await otherPage.reload();
      await expect(otherPage).toHaveURL(/\/signin\?next=%2Fhome$/);

      expect(await apiSignInStatus(request, user.email, user.password)).toBe(401);
      expect(await apiSignInStatus(request, user.email, newPassword)).toBe(200);
    } finally {
      await other.close();
    }
  });

  test('Logout goes to /signin, and /home then asks to sign in', async ({ page, request }) => {
    const user = makeUser('al');
    await createUserViaApi(request, user);
    await signInViaApi(page, user.email, user.password);
    await page.goto('/account');
    await page.getByRole('button', { name: 'Logout' }).click();
    await expect(page).toHaveURL(/\/signin$/);
    await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();
    await page.goto('/home');
    await expect(page).toHaveURL(/\/signin\?next=%2Fhome$/);
    await page.goto('/account');
    await expect(page).toHaveURL(/\/signin\?next=%2Faccount$/);
  });

  test('Delete Account: the dialog, Cancel keeps the account, the password confirms, Delete removes it', async ({
    page,
    request,
  }) => {
    const user = makeUser('ad');
    await createUserViaApi(request, user);
    await signInViaApi(page, user.email, user.password);
    await page.goto('/account');

    await page.getByRole('button', { name: 'Delete Account' }).click();
    const dialog = page.getByRole('alertdialog').or(page.getByRole('dialog'));
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('heading')).toHaveText('Are you absolutely sure?');
    await expect(dialog.getByText(/^This action cannot be undone/)).toHaveText(
      'This action cannot be undone. This will permanently delete your account and remove your data from our servers.',
    );
    await expect(dialog.getByRole('button', { name: /^(Cancel|Delete Account)$/ })).toHaveText([
      'Cancel',
      'Delete Account',
    ]);
    // The password confirms it (a session alone cannot delete the account).
    await expect(dialog.getByLabel('Password', { exact: true })).toBeVisible();
    await shotBoth(page, 'account-delete-dialog');

    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
    await page.reload();
    await expect(page).toHaveURL(/\/account$/);
    await expect(page.getByRole('region', { name: 'Email', exact: true })).toContainText(user.email);

    await page.getByRole('button', { name: 'Delete Account' }).click();
    await expect(dialog).toBeVisible();
    await dialog.getByRole('button', { name: 'Delete Account' }).click();
    await expectToast(page, 'Failed to Delete Account', 'Please fill in all fields');
    await dialog.getByLabel('Password', { exact: true }).fill('not-my-password');
    await dialog.getByRole('button', { name: 'Delete Account' }).click();
    await expectToast(page, 'Failed to Delete Account', 'The current password is incorrect');
    await expect(dialog).toBeVisible();
    await dialog.getByLabel('Password', { exact: true }).fill(user.password);
    await dialog.getByRole('button', { name: 'Delete Account' }).click();
    await expectToast(page, 'Account Deleted', undefined, 'success');
    await expect(page).toHaveURL(/\/signup$/);
    await expect(page.getByRole('heading', { name: 'Create Account' })).toBeVisible();

    expect(await apiSignInStatus(request, user.email, user.password)).toBe(401);
    expect(await apiSignInStatus(request, user.username, user.password)).toBe(401);
    await page.goto('/home');
    await expect(page).toHaveURL(/\/signin\?next=%2Fhome$/);

    // The handle is free again.
    await page.goto('/signup');
    const again = makeUser('ad', { username: user.username });
    await fillSignUp(page, again);
    await page.getByRole('button', { name: 'Sign Up', exact: true }).click();
    await expectToast(page, 'Account Created!', 'Please check your email to verify your account');
    await expect(page).toHaveURL(/\/home$/);
  });
});

/** Sign up (/signup): the whole form, its validation messages, the agreement, and taken handles. */
import { apiSignInStatus, expectToast, fillSignUp, shotBoth, VERIFY_SUBJECT } from './auth-helpers.ts';
import { createUserViaApi, expect, latestMail, makeUser, test } from './fixtures.ts';

test.describe('sign up', () => {
  test('a complete form creates the account, lands on /home and sends a verification mail', async ({ page }) => {
    const user = makeUser('su');
    await page.goto('/signup');
    await expect(page.getByRole('heading', { name: 'Create Account' })).toBeVisible();
    await fillSignUp(page, user);
    await page.getByRole('button', { name: 'Sign Up', exact: true }).click();

    await expectToast(page, 'Account Created!', 'Please check your email to verify your account', 'success');
    await expect(page).toHaveURL(/\/home$/);
    const banner = page.getByRole('status').filter({ hasText: 'Please verify your e-mail address' });
    await expect(banner).toBeVisible();
    await expect(banner).toContainText(user.email);
    await expect(banner.getByRole('button', { name: 'Resend email' })).toBeVisible();

    const mail = await latestMail(user.email, VERIFY_SUBJECT);
    expect(mail.links.some((l) => new URL(l).pathname === '/verify-email')).toBe(true);
  });

  test('without the agreement box ticked nothing is created', async ({ page, request }) => {
    const user = makeUser('sa');
    let signUpCalls = 0;
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/auth/signup') signUpCalls += 1;
    });
    await page.goto('/signup');
    await fillSignUp(page, user, { agree: false });
    await page.getByRole('button', { name: 'Sign Up', exact: true }).click();

    await expectToast(page, 'Agreement Required', 'Please agree to the terms and privacy policy', 'error');
    await expect(page).toHaveURL(/\/signup$/);
    await expect(page.getByRole('checkbox', { name: /I agree to the/ })).toHaveAttribute('aria-invalid', 'true');
    expect(signUpCalls).toBe(0);
    expect(await apiSignInStatus(request, user.email, user.password)).toBe(401);
    expect(await apiSignInStatus(request, user.username, user.password)).toBe(401);
  });

  test('each field shows its exact message for a bad value', async ({ page }) => {
    const user = makeUser('sv');
    let signUpCalls = 0;
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/auth/signup') signUpCalls += 1;
    });
    await page.goto('/signup');
    await fillSignUp(page, user);

    const cases: { field: string; bad: string; good: string; message: string }[] = [
      { field: 'name', bad: 'A', good: user.name, message: 'Name must be at least 2 characters' },
      { field: 'phone', bad: '123', good: user.phone, message: 'Invalid phone number' },
      { field: 'age', bad: '12', good: String(user.age), message: 'Age must be between 13 and 120' },
      { field: 'username', bad: 'ab', good: user.username, message: 'Username must be at least 3 characters' },
      {
        field: 'username',
        bad: 'bad name!',
        good: user.username,
        message: 'Username can only contain letters, numbers, and underscores',
      },
      { field: 'email', bad: 'nope', good: user.email, message: 'Invalid email address' },
      { field: 'password', bad: '123', good: user.password, message: 'Password must be at least 6 characters' },
    ];
    const submit = page.getByRole('button', { name: 'Sign Up', exact: true });
    for (const c of cases) {
      const input = page.locator(`#signup-${c.field}`);
      await input.fill(c.bad);
      await submit.click();
      const error = page.locator(`#signup-${c.field}-error`);
      await expect(error, `${c.field} = ${JSON.stringify(c.bad)}`).toHaveText(c.message);
      await expect(input).toHaveAttribute('aria-invalid', 'true');
      await expect(input).toBeFocused();
      await expectToast(page, 'Sign Up Failed', c.message, 'error');
      // Only the field in error has a message.
      await expect(page.locator('[id^="signup-"][id$="-error"]')).toHaveCount(1);
      await input.fill(c.good);
      await expect(error).toBeHidden();
    }
    await expect(page).toHaveURL(/\/signup$/);
    expect(signUpCalls).toBe(0);
  });

  test('submitting the empty form marks every field', async ({ page }) => {
    await page.goto('/signup');
    await page.getByRole('checkbox', { name: /I agree to the/ }).check();
    await page.getByRole('button', { name: 'Sign Up', exact: true }).click();
    await expect(page.locator('#signup-name-error')).toHaveText('Name must be at least 2 characters');
    await expect(page.locator('#signup-phone-error')).toHaveText('Invalid phone number');
    await expect(page.locator('#signup-age-error')).toHaveText('Age must be between 13 and 120');
    await expect(page.locator('#signup-username-error')).toHaveText('Username must be at least 3 characters');
    await expect(page.locator('#signup-email-error')).toHaveText('Invalid email address');
    await expect(page.locator('#signup-password-error')).toHaveText('Password must be at least 6 characters');
    await expect(page.locator('#signup-name')).toBeFocused();
    await shotBoth(page, 'sign-up-empty-errors');
  });

  test('a handle taken in another letter case is refused with Username Taken', async ({ page, request }) => {
    const owner = makeUser('Tk');
    await createUserViaApi(request, owner);
    const user = makeUser('tk', { username: owner.username.toLowerCase() });
    expect(user.username).not.toBe(owner.username);

    await page.goto('/signup');
    await fillSignUp(page, user);
    await page.getByRole('button', { name: 'Sign Up', exact: true }).click();

    await expectToast(page, 'Username Taken', 'This username is already in use', 'error');
    await expect(page.locator('#signup-username-error')).toHaveText('This username is already in use');
    await expect(page).toHaveURL(/\/signup$/);
    await expect(page.getByRole('button', { name: 'Sign Up', exact: true })).toBeEnabled();
    expect(await apiSignInStatus(request, user.email, user.password)).toBe(401);
  });

  test("the button reads 'Creating Account...' while the request is on its way", async ({ page }) => {
    const user = makeUser('sb');
    await page.route('**/api/auth/signup', async (route) => {
      await new Promise((res) => setTimeout(res, 800));
      await route.continue();
    });
    await page.goto('/signup');
    await fillSignUp(page, user);
    await page.getByRole('button', { name: 'Sign Up', exact: true }).click();

    const busy = page.getByRole('button', { name: 'Creating Account...' });
    await expect(busy).toBeVisible();
    await expect(busy).toBeDisabled();
    await expect(page).toHaveURL(/\/home$/);
    await expectToast(page, 'Account Created!', 'Please check your email to verify your account');
  });

  test('the Terms and Privacy links of the agreement open their pages and Back returns', async ({ page }) => {
    await page.goto('/signup');
    const agreement = page.locator('label[for="signup-agree"]');

    await agreement.getByRole('link', { name: 'Terms of Service' }).click();
    await expect(page).toHaveURL(/\/terms$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Terms of Service' })).toBeVisible();
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page).toHaveURL(/\/signup$/);
    await expect(page.getByRole('heading', { name: 'Create Account' })).toBeVisible();

    await agreement.getByRole('link', { name: 'Privacy Policy' }).click();
    await expect(page).toHaveURL(/\/privacy$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Privacy Policy' })).toBeVisible();
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page).toHaveURL(/\/signup$/);
    await expect(page.getByRole('heading', { name: 'Create Account' })).toBeVisible();
  });
});

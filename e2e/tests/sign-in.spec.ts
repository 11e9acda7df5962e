/** Sign in (/signin), the signed-in guards with ?next=, blocked accounts and the administrator. */
import { blockUser, expectToast, shotBoth, submitSignIn, VERIFY_SUBJECT } from './auth-helpers.ts';
import { createUserViaApi, expect, linkFromMail, makeUser, signInViaApi, test } from './fixtures.ts';

test.describe('sign in', () => {
  const logins = [
    { how: 'e-mail', login: (u: { email: string }) => u.email },
    { how: 'username', login: (u: { username: string }) => u.username },
    { how: '@username', login: (u: { username: string }) => `@${u.username}` },
  ];
  for (const { how, login } of logins) {
    test(`by ${how}: Welcome Back! and /home`, async ({ page, request }) => {
      const user = makeUser('si');
      await createUserViaApi(request, user);
      await page.goto('/signin');
      await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();
      await submitSignIn(page, login(user), user.password);
      await expectToast(page, 'Welcome Back!', 'Successfully signed in', 'success');
      await expect(page).toHaveURL(/\/home$/);
      await expect(page.getByRole('status').filter({ hasText: user.email })).toBeVisible();
    });
  }

  test('a wrong password and an unknown account both fail with Invalid credentials', async ({ page, request }) => {
    const user = makeUser('sw');
    await createUserViaApi(request, user);
    await page.goto('/signin');

    await submitSignIn(page, user.email, 'wrong-password-1');
    await expectToast(page, 'Sign In Failed', 'Invalid credentials', 'error');
    await expect(page).toHaveURL(/\/signin$/);

    await page.locator('[data-sonner-toast] button[aria-label="Close toast"]').first().click();
    await expect(page.locator('[data-sonner-toast]')).toHaveCount(0);
    await submitSignIn(page, `nobody_${user.username}`.slice(0, 20), user.password);
    await expectToast(page, 'Sign In Failed', 'Invalid credentials', 'error');

    await page.locator('[data-sonner-toast] button[aria-label="Close toast"]').first().click();
    await expect(page.locator('[data-sonner-toast]')).toHaveCount(0);
    await submitSignIn(page, `nobody.${user.email}`, user.password);
    await expectToast(page, 'Sign In Failed', 'Invalid credentials', 'error');
    await expect(page).toHaveURL(/\/signin$/);
  });

  test("'Signing In...' while busy; Remember me is there and ticked", async ({ page, request }) => {
    const user = makeUser('sr');
    await createUserViaApi(request, user);
    await page.route('**/api/auth/signin', async (route) => {
      await new Promise((res) => setTimeout(res, 800));
      await route.continue();
    });
    await page.goto('/signin');
    const remember = page.getByRole('checkbox', { name: 'Remember me' });
    await expect(remember).toBeVisible();
    await expect(remember).toBeChecked();
    await shotBoth(page, 'sign-in');

    await submitSignIn(page, user.username, user.password);
    const busy = page.getByRole('button', { name: 'Signing In...' });
    await expect(busy).toBeVisible();
    await expect(busy).toBeDisabled();
    await expect(page).toHaveURL(/\/home$/);
  });

  for (const target of ['/home', '/settings', '/account', '/profile', '/locked']) {
    test(`signed out, ${target} goes to /signin and back after signing in`, async ({ page, request }) => {
      const user = makeUser('sg');
      await createUserViaApi(request, user);
      await page.goto(target);
      await expect(page).toHaveURL((url) => url.pathname === '/signin' && url.searchParams.get('next') === target);
      await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();
      await submitSignIn(page, user.email, user.password);
      await expectToast(page, 'Welcome Back!', 'Successfully signed in');
      await expect(page).toHaveURL((url) => url.pathname === target && url.search === '');
    });
  }
});

test.describe('blocked accounts', () => {
  test('a blocked user cannot sign in: /blocked, then Sign Out goes to /signin', async ({ page, request }) => {
    const user = makeUser('bl');
    await createUserViaApi(request, user);
    blockUser(user.username);

    await page.goto('/signin');
    await submitSignIn(page, user.email, user.password);
    await expect(page).toHaveURL(/\/blocked$/);
    await expect(page.getByRole('heading', { name: 'Account Blocked' })).toBeVisible();
    await expect(page.getByText('blocked by the administrator')).toBeVisible();
    await expect(page.getByText('contact support')).toBeVisible();
    await shotBoth(page, 'blocked');

    await page.getByRole('button', { name: 'Sign Out' }).click();
    await expect(page).toHaveURL(/\/signin$/);
    await page.goto('/home');
    await expect(page).toHaveURL(/\/signin\?next=%2Fhome$/);
  });

  test('a signed-in user who gets blocked is sent to /blocked on the next page load', async ({ page, request }) => {
    const user = makeUser('bn');
    await createUserViaApi(request, user);
    await signInViaApi(page, user.email, user.password);
    await page.goto('/home');
    await expect(page).toHaveURL(/\/home$/);
    await expect(page.getByRole('status').filter({ hasText: user.email })).toBeVisible();

    blockUser(user.username);
    await page.reload();
    await expect(page).toHaveURL(/\/blocked$/);
    await expect(page.getByRole('heading', { name: 'Account Blocked' })).toBeVisible();
    // The session has ended: home is out of reach.
    await page.goto('/home');
    await expect(page).toHaveURL(/\/signin\?next=%2Fhome$/);
  });
});

test.describe('administrator', () => {
  test('the verified admin@example.com lands on /admin with Total Users', async ({ page, request }) => {
    const admin = makeUser('ad', { email: 'admin@example.com' });
    await createUserViaApi(request, admin);
    await page.goto(await linkFromMail(admin.email, VERIFY_SUBJECT, '/verify-email'));
    await expect(page.getByRole('heading', { name: 'Email Verified' })).toBeVisible();

    await page.goto('/signin');
    await submitSignIn(page, admin.email, admin.password);
    await expectToast(page, 'Welcome Back!', 'Successfully signed in');
    await expect(page).toHaveURL(/\/admin$/);
    await expect(page.getByRole('heading', { name: 'Admin Dashboard' })).toBeVisible();
    const card = page.getByRole('region', { name: 'Total Users' });
    await expect(card).toBeVisible();
    await expect(card.getByText(/^\d[\d,]*$/)).toBeVisible();
    await shotBoth(page, 'admin');
  });

  test('a regular user opening /admin is sent to /home', async ({ page, request }) => {
    const user = makeUser('na');
    await createUserViaApi(request, user);
    await signInViaApi(page, user.email, user.password);
    await page.goto('/admin');
    await expect(page).toHaveURL(/\/home$/);
    await expect(page.getByRole('heading', { name: 'Admin Dashboard' })).toHaveCount(0);
  });
});

/**
 * History across a password reset (issue 14, docs/e2ee.md): a browser that never
 * had the keys starts a new identity, so the messages from before are locked (a banner
 * says so, each one says "Sent before your password reset"), new ones work both ways, and
 * the old password unlocks the rest for every browser; a browser used before the reset
 * brings the old keys back by signing in.
 */
import type { Page } from '@playwright/test';
import { expectToast, RESET_SUBJECT, submitSignIn } from './auth-helpers.ts';
import { bubble, bubbles, expect, openChat, type Person, send, shotSizes, test } from './chat-helpers.ts';
import { linkFromMail } from './fixtures.ts';

const LOCKED = '🔒 Sent before your password reset';
const BANNER = 'Messages from before your password reset are locked.';

/** Resets `person`'s password to `password` through the e-mailed link, on `page` (any browser). */
async function resetByMail(page: Page, person: Person, password: string): Promise<void> {
  const before = await linkFromMail(person.user.email, RESET_SUBJECT, '/reset-password').catch(() => null);
  expect((await page.request.post('/api/auth/forgot-password', { data: { email: person.user.email } })).status()).toBe(
    204,
  );
  await expect.poll(() => linkFromMail(person.user.email, RESET_SUBJECT, '/reset-password')).not.toBe(before);
  await page.goto(await linkFromMail(person.user.email, RESET_SUBJECT, '/reset-password'));
  await page.locator('#reset-password').fill(password);
  await page.getByRole('button', { name: 'Reset Password' }).click();
  await expectToast(page, 'Password Reset', 'Sign in with your new password', 'success');
}

async function conversationWith(alice: Person, bob: Person, texts: [string, string]): Promise<void> {
  await openChat(alice.page, bob);
  await openChat(bob.page, alice);
  await send(alice.page, texts[0]);
  await expect(bubble(bob.page, texts[0])).toBeVisible();
  await send(bob.page, texts[1]);
  await expect(bubble(alice.page, texts[1])).toBeVisible();
}

test.describe('a password reset', () => {
  test('in a fresh browser: earlier messages are locked, new ones work, and the old password unlocks them everywhere', async ({
    people,
    page,
  }) => {
    test.setTimeout(180_000);
    const [alice, bob] = await Promise.all([people.person('alice'), people.person('bob')]);
    await conversationWith(alice, bob, ['before reset from alice', 'before reset from bob']);
    // Bob compares the code with Alice and marks her verified.
    await bob.page.getByRole('button', { name: 'Compare security code' }).click();
    const verify = bob.page.getByRole('dialog', { name: 'Compare security code' });
    await verify.getByRole('button', { name: 'Mark as confirmed' }).click();
    await expect(verify.getByText(`You confirmed ${alice.handle}’s code.`)).toBeVisible();
    await verify.press('Escape');

    const newPassword = 'after-reset-pw-1';
    await resetByMail(page, alice, newPassword);
    const fresh = await people.signIn({ ...alice.user, password: newPassword }, alice.id);
    await fresh.page.goto('/home');
    const banner = fresh.page.getByRole('status').filter({ hasText: BANNER });
    await expect(banner).toBeVisible();
    await shotSizes(fresh.page, 'e2ee-locked-history-banner');

    await openChat(fresh.page, bob);
    await expect(bubbles(fresh.page).filter({ hasText: LOCKED })).toHaveCount(2);
    await shotSizes(fresh.page, 'e2ee-locked-history-chat');
    // New messages work both ways; Bob still reads the old ones, and is told Alice's code changed.
    await send(fresh.page, 'after reset from alice');
    await expect(bubble(bob.page, 'after reset from alice')).toBeVisible();
    await expect(bubble(bob.page, 'before reset from alice')).toBeVisible();
    const changed = bob.page.getByRole('button', { name: `${alice.handle}’s security code changed. Tap to compare.` });
    await expect(changed).toBeVisible();
    // Bob had verified Alice: his composer waits until he looks at the new code or accepts it.
    const blocked = bob.page.getByRole('region', { name: 'Security code changed' });
    await expect(blocked).toBeVisible();
    await expect(bob.page.getByRole('textbox', { name: 'Message', exact: true })).toHaveCount(0);
    await shotSizes(bob.page, 'e2ee-security-code-changed');
    await changed.click();
    await expect(verify.getByText(`${alice.handle}’s code is not confirmed.`)).toBeVisible();
    await verify.press('Escape');
    await blocked.getByRole('button', { name: 'Accept' }).click();
    await expect(blocked).toHaveCount(0);
    await send(bob.page, 'after reset from bob');
    await expect(bubble(fresh.page, 'after reset from bob')).toBeVisible();

    // The wrong old password unlocks nothing; the right one brings the history back.
    await fresh.page.goto('/home');
    await banner.getByRole('button', { name: 'Unlock' }).click();
    const dialog = fresh.page.getByRole('dialog', { name: 'Unlock earlier messages' });
    await dialog.getByLabel('Old Password or Recovery Key', { exact: true }).fill('not-the-old-one');
    await dialog.getByLabel('Current Password', { exact: true }).fill(newPassword);
    await dialog.getByRole('button', { name: 'Unlock' }).click();
    await expectToast(fresh.page, 'Could Not Unlock', 'The old password or recovery key is incorrect');
    await dialog.getByLabel('Old Password or Recovery Key', { exact: true }).fill(alice.user.password);
    await dialog.getByRole('button', { name: 'Unlock' }).click();
    await expectToast(fresh.page, 'Messages Unlocked');
    await expect(banner).toHaveCount(0);
    await openChat(fresh.page, bob);
    for (const text of ['before reset from alice', 'before reset from bob', 'after reset from bob']) {
      await expect(bubble(fresh.page, text)).toBeVisible();
    }
    await expect(bubbles(fresh.page).filter({ hasText: LOCKED })).toHaveCount(0);

    // Another browser signing in now gets every key at once: nothing locked there either.
    const third = await people.signIn({ ...alice.user, password: newPassword }, alice.id);
    await openChat(third.page, bob);
    await expect(bubble(third.page, 'before reset from bob')).toBeVisible();
    await expect(bubble(third.page, 'after reset from alice')).toBeVisible();
    await third.page.goto('/home');
    await expect(third.page.getByRole('status').filter({ hasText: 'Unlock' })).toHaveCount(0);
  });

  test('a browser used before the reset brings the old keys back when it signs in again', async ({ people, page }) => {
    test.setTimeout(180_000);
    const [alice, bob] = await Promise.all([people.person('alice'), people.person('bob')]);
    await conversationWith(alice, bob, ['old from alice', 'old from bob']);

    const newPassword = 'after-reset-pw-2';
    await resetByMail(page, alice, newPassword);
    const fresh = await people.signIn({ ...alice.user, password: newPassword }, alice.id);
    await openChat(fresh.page, bob);
    await expect(bubbles(fresh.page).filter({ hasText: LOCKED })).toHaveCount(2);

    // The first browser, signed out by the reset, signs in with the new password: its copy is merged in.
    await alice.page.goto('/signin');
    await submitSignIn(alice.page, alice.user.email, newPassword);
    await expect(alice.page).toHaveURL(/\/home$/);
    await expect(alice.page.getByText(BANNER)).toHaveCount(0);
    await openChat(alice.page, bob);
    await expect(bubble(alice.page, 'old from bob')).toBeVisible();

    // The fresh browser is told its copy is behind, and its password brings it up to date.
    await fresh.page.goto('/home');
    const behind = fresh.page
      .getByRole('status')
      .filter({ hasText: 'Earlier messages were unlocked on another browser' });
    await expect(behind).toBeVisible();
    await behind.getByRole('button', { name: 'Unlock' }).click();
    const dialog = fresh.page.getByRole('dialog', { name: 'Unlock your messages' });
    await dialog.getByLabel('Password', { exact: true }).fill(newPassword);
    await dialog.getByRole('button', { name: 'Unlock' }).click();
    await expectToast(fresh.page, 'Messages Unlocked');
    await expect(behind).toHaveCount(0);
    await openChat(fresh.page, bob);
    await expect(bubble(fresh.page, 'old from alice')).toBeVisible();
  });

  test('a recovery key made before the reset unlocks the history', async ({ people, page }) => {
    test.setTimeout(180_000);
    const [alice, bob] = await Promise.all([people.person('alice'), people.person('bob')]);
    await conversationWith(alice, bob, ['kept by the key, alice', 'kept by the key, bob']);
    await alice.page.goto('/account');
    const section = alice.page.getByRole('region', { name: 'Recovery Key' });
    await expect(section.getByText('You have no recovery key.')).toBeVisible();
    await section.getByRole('button', { name: 'Create Recovery Key' }).click();
    const create = alice.page.getByRole('dialog', { name: 'Create a recovery key' });
    await create.getByLabel('Password', { exact: true }).fill(alice.user.password);
    await create.getByRole('button', { name: 'Create' }).click();
    const shown = alice.page.getByRole('dialog', { name: 'Your recovery key' });
    const key = (await shown.getByTestId('recovery-key').textContent()) ?? '';
    expect(key).toMatch(/^([A-Z2-7]{4}-){6}[A-Z2-7]{4}$/);
    await shotSizes(alice.page, 'e2ee-recovery-key');
    await shown.getByRole('button', { name: 'I saved it' }).click();
    await expect(section.getByText(/^You made a recovery key on /)).toBeVisible();

    const newPassword = 'after-reset-pw-3';
    await resetByMail(page, alice, newPassword);
    const fresh = await people.signIn({ ...alice.user, password: newPassword }, alice.id);
    await openChat(fresh.page, bob);
    await expect(bubbles(fresh.page).filter({ hasText: LOCKED })).toHaveCount(2);
    await fresh.page.goto('/home');
    const banner = fresh.page.getByRole('status').filter({ hasText: BANNER });
    await banner.getByRole('button', { name: 'Unlock' }).click();
    const dialog = fresh.page.getByRole('dialog', { name: 'Unlock earlier messages' });
    // Typed as people type it: lower case, spaces for dashes.
    await dialog.getByLabel('Old Password or Recovery Key', { exact: true }).fill(key.toLowerCase().replace(/-/g, ' '));
    await dialog.getByLabel('Current Password', { exact: true }).fill(newPassword);
    await dialog.getByRole('button', { name: 'Unlock' }).click();
    await expectToast(fresh.page, 'Messages Unlocked');
    await openChat(fresh.page, bob);
    await expect(bubble(fresh.page, 'kept by the key, alice')).toBeVisible();
    await expect(bubble(fresh.page, 'kept by the key, bob')).toBeVisible();
  });
});

/**
 * Two-step verification in the browser (issue 32): an account (from the API, not the form)
 * sets up an authenticator app (its recovery codes shown once) and a passkey (Chromium's
 * virtual authenticator), then signs in with the passkey, with an app code, and, having lost
 * the passkey's device, with a recovery code; it then removes the lost passkey (the password
 * confirms it). WebAuthn needs a host name, not an address: this test's own server answers at
 * http://localhost.
 */
import { expect, type Page, test } from '@playwright/test';
import { Secret, TOTP } from 'otpauth';
import { apiSignUp } from './api-accounts.ts';
import { submitSignIn } from './auth-helpers.ts';
import { scanSchemes } from './axe.ts';
import { closeToasts } from './chat-helpers.ts';
import { makeUser } from './fixtures.ts';
import { type PrivateServer, startPrivateServer } from './private-server.ts';
import { signInPrepared } from './signed-in.ts';

const codeAt = (secret: string, at: number) =>
  new TOTP({ secret: Secret.fromBase32(secret.replaceAll(' ', '')), digits: 6, period: 30 }).generate({
    timestamp: at,
  });

async function signOut(page: Page, base: string): Promise<void> {
  expect((await page.request.post(`${base}/api/auth/signout`, { headers: { origin: base } })).status()).toBe(204);
}

async function signInToSecondStep(page: Page, base: string, username: string, password: string): Promise<void> {
  await page.goto(`${base}/signin`);
  await submitSignIn(page, username, password);
  await expect(page.getByRole('heading', { level: 1, name: 'Two-Step Verification' })).toBeVisible();
}

let server: PrivateServer;
let base: string;
test.beforeAll(async () => {
  // Its own server, at localhost (a relying party id must be a host name).
  server = await startPrivateServer({ host: 'localhost' });
  base = server.baseURL;
});
test.afterAll(async () => {
  await server?.stop();
});

test('an app and a passkey set up; sign-ins with each, and with a recovery code after losing a device', async ({
  page,
}) => {
  test.setTimeout(90_000);
  const user = makeUser('twostep');
  await apiSignUp(base, user);
  await signInPrepared(page, user, base);
  await page.goto(`${base}/two-step`);
  await expect(page.getByRole('status').filter({ hasText: 'Off' })).toBeVisible();

  // The app: scan (here: read the key), enter its code, keep the recovery codes.
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
  // Adding a way takes the password (a session alone cannot).
  await page.locator('#two-step-password').fill(user.password);
  await page.getByRole('button', { name: 'Continue' }).click();
  const secret = (await page.getByTestId('totp-secret').textContent()) ?? '';
  await expect(page.getByRole('img', { name: 'Authenticator app setup as a QR code' })).toBeVisible();
  await page.getByLabel('Code from the app').fill(codeAt(secret, Date.now()));
  await page.getByRole('button', { name: 'Turn On' }).click();
  const codes = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
  await expect(codes).toHaveCount(10);
  const recovery = (await codes.allTextContents()).map((c) => c.trim());
  await closeToasts(page);
  const findings: string[] = [];
  await scanSchemes(page, 'two-step-recovery-codes', findings);
  await page.getByRole('button', { name: 'I have saved them' }).click();

  // A passkey, on Chromium's virtual authenticator (this device's, in effect).
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  });
  await page.getByLabel('Passkey name').fill('This laptop');
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.locator('#two-step-password').fill(user.password);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('list', { name: 'Passkeys' }).getByText('This laptop')).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'On' })).toBeVisible();
  await closeToasts(page);
  await scanSchemes(page, 'two-step-settings', findings);

  // Sign in with the passkey.
  await signOut(page, base);
  await signInToSecondStep(page, base, user.username, user.password);
  await scanSchemes(page, 'two-step-sign-in', findings);
  await page.getByRole('button', { name: 'Use a passkey' }).click();
  await expect(page).toHaveURL(/\/home$/);

  // With the app's code (the next one: each is good once).
  await signOut(page, base);
  await signInToSecondStep(page, base, user.username, user.password);
  await page.getByLabel('Code from the app').fill('000000');
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByText('That code is not right')).toBeVisible();
  await page.getByLabel('Code from the app').fill(codeAt(secret, Date.now() + 30_000));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(/\/home$/);

  // The device with the passkey is lost (and the phone is not at hand): a recovery code.
  await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
  await signOut(page, base);
  await signInToSecondStep(page, base, user.username, user.password);
  await page.getByRole('button', { name: 'Use a recovery code' }).click();
  await page.getByLabel('Recovery code').fill(recovery[3] ?? '');
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(/\/home$/);

  // The lost passkey goes; the password confirms it.
  await page.goto(`${base}/two-step`);
  await expect(page.getByText('9 of 10 left')).toBeVisible();
  await page.getByRole('button', { name: 'Remove This laptop' }).click();
  await page.locator('#two-step-password').fill(user.password);
  await page.getByRole('button', { name: 'Remove', exact: true }).click();
  await expect(page.getByRole('list', { name: 'Passkeys' })).toHaveCount(0);
  expect(findings).toEqual([]);
});

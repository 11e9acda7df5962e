/**
 * An account imported from the original app (`npm run admin -- import-rtdb`, issue 16), in
 * the browser: its owner follows the "Set your password" e-mail to the reset page, signs in
 * (getting keys for the first time), finds the chat in the list and its messages under the
 * "sent before end-to-end encryption" divider; the peer comes back the same way. Each one's
 * browser re-encrypts their own messages after sign-in, and the chat list says how far it got
 * and what waits for a peer who has not set up encryption yet.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readOutbox } from '@app/server/test';
import { expect, type Page, test } from '@playwright/test';
import { expectToast, submitSignIn } from './auth-helpers.ts';
import { scanSchemes } from './axe.ts';
import { bubble, chatRow, closeToasts } from './chat-helpers.ts';
import { shot, shotSchemes } from './fixtures.ts';
import { startPrivateServer } from './private-server.ts';

const ADMIN_MAIN = path.resolve(import.meta.dirname, '../../apps/server/src/cli/admin-main.ts');
const ADA = 'AdaOriginalUid00000000000001';
const BEN = 'BenOriginalUid00000000000002';
const T = Date.now() - 3 * 86_400_000;

const EXPORT = {
  messages: {
    [[ADA, BEN].sort().join('_')]: {
      '-Nm1': { senderId: ADA, text: 'hello from the old app', timestamp: T, status: 'read', deleted: false },
      '-Nm2': { senderId: BEN, text: 'hi Ada, fixed typo', timestamp: T + 1000, status: 'read', edited: true },
      '-Nm3': { senderId: BEN, text: 'This message deleted', timestamp: T + 2000, status: 'sent', deleted: true },
      '-Nm4': {
        senderId: ADA,
        text: 'see you at nine',
        timestamp: T + 3000,
        status: 'delivered',
        deliveredAt: T + 3500,
      },
    },
  },
  users: {
    [ADA]: {
      username: 'ada_imported',
      name: 'Ada Imported',
      email: 'ada.imported@example.com',
      phone: '5550001111',
      age: 30,
    },
    [BEN]: {
      username: 'ben_imported',
      name: 'Ben Imported',
      email: 'ben.imported@example.com',
      phone: '5550002222',
      age: 31,
    },
  },
};

/** Follows the account's "Set your password" e-mail, then signs in on the page the reset leads to. */
async function setPasswordAndSignIn(page: Page, dataDir: string, email: string, username: string): Promise<void> {
  const mail = readOutbox(dataDir).find((m) => m.to.includes(email));
  expect(mail?.subject).toMatch(/Set your .* password/);
  const link = mail?.links.find((l) => new URL(l).pathname === '/reset-password') as string;
  await page.goto(link);
  // A first password, not a reset: the page says so.
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Set Your Password');
  await shotSchemes(page, 'import-set-password');
  await page.locator('#reset-password').fill(`${username}-pass-1`);
  await page.getByRole('button', { name: 'Set Password' }).click();
  await expectToast(page, 'Password Set', 'Sign in with your new password', 'success');
  await expect(page).toHaveURL(/\/signin$/);
  await submitSignIn(page, username, `${username}-pass-1`);
  await expect(page).toHaveURL(/\/home$/);
}

test('an imported user sets a password, signs in and finds the chat from the original app', async ({
  page,
  browser,
}) => {
  test.setTimeout(90_000);
  const server = await startPrivateServer();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'parley-import-e2e-'));
  try {
    const file = path.join(dir, 'export.json');
    writeFileSync(file, JSON.stringify(EXPORT));
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: server.dataDir, PUBLIC_URL: server.baseURL };
    for (const key of ['DATABASE_URL', 'SMTP_URL', 'REDIS_URL', 'SESSION_SECRET']) delete env[key];
    const report = execFileSync(process.execPath, [ADMIN_MAIN, 'import-rtdb', file], { env, encoding: 'utf8' });
    expect(report).toMatch(/accounts: 2 created/);
    expect(report).toMatch(/chats: 1 imported with 4 messages/);

    await setPasswordAndSignIn(page, server.dataDir, 'ada.imported@example.com', 'ada_imported');
    // Ben has no keys yet: Ada's two messages wait for him.
    const status = page.getByRole('status').filter({ hasText: 'earlier messages' });
    await expect(status).toHaveText('2 earlier messages wait until the people you sent them to set up encryption.');
    await closeToasts(page);
    const findings: string[] = [];
    await scanSchemes(page, 'legacy-waiting', findings);
    expect(findings).toEqual([]);
    const row = chatRow(page, '@ben_imported');
    await expect(row).toBeVisible();
    await expect(row.getByText('see you at nine')).toBeVisible();
    await row.click();
    await expect(page.getByRole('heading', { level: 1, name: '@ben_imported' })).toBeVisible();
    for (const text of ['hello from the old app', 'hi Ada, fixed typo', 'see you at nine']) {
      await expect(bubble(page, text)).toBeVisible();
    }
    await expect(bubble(page, 'This message deleted')).toBeVisible();
    await expect(page.getByText('Messages above were sent before end-to-end encryption')).toBeVisible();
    await shot(page, 'imported-chat');

    // Ben comes back too (his first keys): his message is re-encrypted at once (the chat gets its first key).
    const benContext = await browser.newContext();
    const ben = await benContext.newPage();
    await setPasswordAndSignIn(ben, server.dataDir, 'ben.imported@example.com', 'ben_imported');
    await expect(ben.getByRole('status').filter({ hasText: 'earlier messages' })).toHaveText(
      'Your earlier messages are end-to-end encrypted now (1).',
    );
    await benContext.close();
    // Ada's next visit finds Ben's keys: hers are re-encrypted, and her chat still reads the same.
    await page.goto(`${server.baseURL}/home`);
    await expect(status).toHaveText('Your earlier messages are end-to-end encrypted now (2).');
    await status.locator('..').locator('..').getByRole('button', { name: 'Dismiss' }).click();
    await expect(status).toHaveCount(0);
    await chatRow(page, '@ben_imported').click();
    await expect(bubble(page, 'see you at nine')).toBeVisible();
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

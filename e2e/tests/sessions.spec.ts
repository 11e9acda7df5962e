/**
 * Settings › "Where you're signed in": the account's browsers, this one first; signing out
 * one other browser, or all of them, ends them at once (a socket of theirs closes, an open
 * page of theirs is sent to sign in), and the list says so. With an axe scan and pictures
 * of the list and of its confirmation.
 */
import { CLOSE } from '@app/protocol';
import { signInBody, TestClient, type TestServer, WsTestClient } from '@app/server/test';
import { E2E_BASE_URL } from '../env.ts';
import { openHome } from './archive-lock-helpers.ts';
import { expectToast } from './auth-helpers.ts';
import { expectAccessible } from './axe.ts';
import { expect, test } from './chat-helpers.ts';
import { shotSchemes } from './fixtures.ts';

const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';

/** Signs `user` in from a browser with `agent` (over the API), with a socket open. */
async function browserElsewhere(user: { username: string; password: string }, agent: string) {
  const client = new TestClient(E2E_BASE_URL, { 'user-agent': agent });
  const res = await client.post('/api/auth/signin', await signInBody(client, `@${user.username}`, user.password));
  expect(res.status).toBe(200);
  return WsTestClient.connect({ url: E2E_BASE_URL } as TestServer, client.cookie);
}

test('the browsers of the account are listed; one, then all others, are signed out at once', async ({ people }) => {
  const alice = await people.person('alice');
  const firefox = await browserElsewhere(alice.user, FIREFOX_WINDOWS);
  const iphone = await browserElsewhere(alice.user, SAFARI_IPHONE);
  const laptop = await people.signIn(alice.user, alice.id);
  await openHome(laptop.page);
  try {
    const a = alice.page;
    await a.goto('/settings');
    await a.getByRole('link', { name: "Where you're signed in" }).click();
    await expect(a.getByRole('heading', { level: 1, name: "Where you're signed in" })).toBeVisible();
    const list = a.getByRole('list', { name: 'Signed-in browsers' });
    await expect(list.getByRole('listitem').first()).toContainText('This browser');
    await expect(list.getByRole('listitem').filter({ hasText: 'Firefox 133' })).toContainText('Windows 10');
    await expect(list.getByRole('listitem').filter({ hasText: 'Safari 18' })).toContainText('iOS 18');
    await expect(list.getByText('This browser', { exact: true })).toHaveCount(1);

    await shotSchemes(a, 'sessions');
    await expectAccessible(a, [
      {
        name: '/sessions',
        async open(page) {
          await page.goto('/sessions');
          await expect(page.getByRole('list', { name: 'Signed-in browsers' })).toContainText('Firefox 133');
        },
      },
      {
        name: '/sessions sign out all others dialog',
        async open(page) {
          await page.goto('/sessions');
          await page.getByRole('button', { name: 'Sign out all other browsers' }).click();
          await expect(page.getByRole('dialog', { name: 'Sign out all other browsers?' })).toBeVisible();
        },
      },
    ]);
    await a.goto('/sessions');

    // One browser: its socket closes at once, and it leaves the list.
    await a.getByRole('button', { name: 'Sign out Firefox 133 on Windows 10' }).click();
    await expectToast(a, 'Signed Out', 'Firefox 133 on Windows 10');
    await firefox.waitClosed();
    expect(firefox.closed?.code).toBe(CLOSE.sessionEnded);
    await expect(list).not.toContainText('Firefox 133');
    expect(iphone.closed).toBeNull();

    // All others: confirmed first; the iPhone's socket closes, the laptop's page goes to sign in.
    await a.getByRole('button', { name: 'Sign out all other browsers' }).click();
    const dialog = a.getByRole('dialog', { name: 'Sign out all other browsers?' });
    await shotSchemes(a, 'sessions-confirm');
    await dialog.getByRole('button', { name: 'Sign out', exact: true }).click();
    await expectToast(a, 'Signed Out');
    await iphone.waitClosed();
    await expect(laptop.page).toHaveURL(/\/signin/);
    await expect(list.getByRole('listitem')).toHaveCount(1);
    await expect(a.getByText('You are signed in in this browser only.')).toBeVisible();
    // This browser is still signed in.
    await openHome(a);
    await expect(a).toHaveURL(/\/home/);
  } finally {
    await firefox.close();
    await iphone.close();
  }
});

/**
 * Privacy settings (spec section 2 "Privacy settings", section 3 privacy defaults, section 8
 * "Privacy Settings Updated"): the three toggles and what Read Receipts and Last Seen do
 * between two people, and the chat PIN: set, change and remove (with the account password).
 */
import type { Page } from '@playwright/test';
import {
  bubble,
  CLOCK,
  chatRow,
  expect,
  openChat,
  type Person,
  send,
  shotSizes,
  test,
  tick,
  unreadBadge,
} from './chat-helpers.ts';
import { expectNoSidewaysScroll } from './screen-helpers.ts';

const TOGGLES = ['Read Receipts', 'Last Seen', 'Message Requests'] as const;
type Toggle = (typeof TOGGLES)[number];

function toggle(page: Page, name: Toggle) {
  return page.getByRole('switch', { name });
}

function toast(page: Page, title: string) {
  return page.locator('[data-sonner-toast]').filter({ hasText: title });
}

async function openPrivacy(page: Page): Promise<void> {
  await page.goto('/privacy-settings');
  await expect(page.getByRole('heading', { level: 1, name: 'Privacy Settings' })).toBeVisible();
  await expect(toggle(page, 'Read Receipts')).toBeVisible();
}

/** Flips a switch on /privacy-settings and waits for the save to be confirmed. */
async function setToggle(page: Page, name: Toggle, on: boolean): Promise<void> {
  const sw = toggle(page, name);
  const saved = toast(page, 'Privacy Settings Updated');
  const before = await saved.count();
  await expect(sw).toHaveAttribute('aria-checked', String(!on));
  await sw.click();
  await expect(sw).toHaveAttribute('aria-checked', String(on));
  await expect(saved).toHaveCount(before + 1);
  await expect(sw).not.toHaveAttribute('aria-disabled', 'true');
}

/** The chat header's presence line. */
function presence(page: Page) {
  return page.getByRole('banner').getByText(/^(Online|Last seen .*|typing…)$/);
}

/**
 * Waits until the server has handled `reader` reading the chat with `writer` (whose last
 * message is `last`): a fresh /home in another tab of the reader shows no unread badge.
 * Whatever the reader sends after that reaches the writer after the read's own updates.
 */
async function readOnServer(reader: Person, writer: Person, last: string): Promise<void> {
  const tab = await reader.context.newPage();
  await tab.goto('/home');
  const row = chatRow(tab, writer.handle);
  await expect(row).toContainText(last);
  await expect(unreadBadge(row)).toHaveCount(0);
  await tab.close();
}

test.describe('privacy settings', () => {
  test('the toggles start at the defaults, each saves at once, and all persist after a reload', async ({ people }) => {
    const me = await people.person('priv');
    const page = me.page;
    await page.goto('/settings');
    await page.getByRole('link', { name: 'Privacy' }).click();
    await expect(page).toHaveURL(/\/privacy-settings$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Privacy Settings' })).toBeVisible();

    // Defaults: read receipts on, last seen on, message requests off; each with its hint.
    await expect(page.getByRole('switch')).toHaveCount(3);
    await expect(toggle(page, 'Read Receipts')).toHaveAttribute('aria-checked', 'true');
    await expect(toggle(page, 'Last Seen')).toHaveAttribute('aria-checked', 'true');
    await expect(toggle(page, 'Message Requests')).toHaveAttribute('aria-checked', 'false');
    await expect(toggle(page, 'Read Receipts')).toHaveAccessibleDescription(
      "When off, others won't see when you read their messages, and you won't see theirs",
    );
    await expect(toggle(page, 'Last Seen')).toHaveAccessibleDescription(
      "When off, others see 'Last seen recently' instead of a time, and you won't see theirs",
    );
    await expect(toggle(page, 'Message Requests')).toHaveAccessibleDescription(
      'When on, people who are not your contacts send a request first',
    );

    await setToggle(page, 'Read Receipts', false);
    await setToggle(page, 'Last Seen', false);
    await setToggle(page, 'Message Requests', true);
    await page.reload();
    await expect(toggle(page, 'Read Receipts')).toHaveAttribute('aria-checked', 'false');
    await expect(toggle(page, 'Last Seen')).toHaveAttribute('aria-checked', 'false');
    await expect(toggle(page, 'Message Requests')).toHaveAttribute('aria-checked', 'true');

    // The keyboard works too: Space flips the focused switch, and it is saved.
    await toggle(page, 'Last Seen').focus();
    await page.keyboard.press('Space');
    await expect(toggle(page, 'Last Seen')).toHaveAttribute('aria-checked', 'true');
    await expect(toast(page, 'Privacy Settings Updated')).toBeVisible();
    await expect(toggle(page, 'Last Seen')).not.toHaveAttribute('aria-disabled', 'true');
    await page.reload();
    await expect(toggle(page, 'Read Receipts')).toHaveAttribute('aria-checked', 'false');
    await expect(toggle(page, 'Last Seen')).toHaveAttribute('aria-checked', 'true');
    await expect(toggle(page, 'Message Requests')).toHaveAttribute('aria-checked', 'true');

    // The server says the same.
    const res = await page.request.get('/api/me/privacy');
    expect((await res.json()).privacy).toEqual({ readReceipts: false, lastSeen: true, requireRequest: true });

    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page).toHaveURL(/\/settings$/);
  });

  test('a failed save puts the switch back and says why', async ({ people }) => {
    const me = await people.person('priv');
    const page = me.page;
    await openPrivacy(page);
    await page.route('**/api/me/privacy', (route) =>
      route.request().method() === 'PUT'
        ? route.fulfill({ status: 500, json: { error: 'internal', message: 'Something broke' } })
        : route.continue(),
    );
    await toggle(page, 'Read Receipts').click();
    await expect(toast(page, 'Failed to Update Privacy Settings')).toContainText('Something broke');
    await expect(toggle(page, 'Read Receipts')).toHaveAttribute('aria-checked', 'true');
    await expect(toast(page, 'Privacy Settings Updated')).toHaveCount(0);
  });

  test('read receipts off: bob reads alice’s message but she sees Delivered, never Read', async ({ people }) => {
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    await openPrivacy(bob.page);
    await setToggle(bob.page, 'Read Receipts', false);

    await openChat(alice.page, bob);
    await send(alice.page, 'Did you read this?');
    const mine = bubble(alice.page, 'Did you read this?');

    await bob.page.goto('/home');
    const row = chatRow(bob.page, alice.handle);
    await expect(unreadBadge(row)).toHaveText('1 unread');
    await expect(tick(mine, 'Delivered')).toBeVisible();

    // Bob opens the chat and reads it: his unread count is gone on the server ...
    await row.getByRole('link').click();
    await expect(bubble(bob.page, 'Did you read this?')).toBeVisible();
    await readOnServer(bob, alice, 'Did you read this?');
    await send(bob.page, 'Yes, I did');
    await expect(bubble(alice.page, 'Yes, I did')).toBeVisible();

    // ... and alice, who got everything up to his reply, still sees Delivered.
    await expect(tick(mine, 'Delivered')).toBeVisible();
    await expect(tick(mine, 'Read')).toHaveCount(0);
    await alice.page.reload();
    await expect(tick(bubble(alice.page, 'Did you read this?'), 'Delivered')).toBeVisible();
    await expect(tick(bubble(alice.page, 'Did you read this?'), 'Read')).toHaveCount(0);

    // Bob, who hides his, does not see alice's either: she reads his reply, he sees Delivered.
    await readOnServer(alice, bob, 'Yes, I did');
    await send(alice.page, 'Good');
    await expect(bubble(bob.page, 'Good')).toBeVisible();
    await expect(tick(bubble(bob.page, 'Yes, I did'), 'Delivered')).toBeVisible();
    await expect(tick(bubble(bob.page, 'Yes, I did'), 'Read')).toHaveCount(0);
  });

  test('read receipts off for the sender: alice does not see that bob (receipts on) read hers', async ({ people }) => {
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    await openPrivacy(alice.page);
    await setToggle(alice.page, 'Read Receipts', false);

    await openChat(alice.page, bob);
    await send(alice.page, 'Blue ticks?');
    const mine = bubble(alice.page, 'Blue ticks?');
    await expect(tick(mine, 'Sent')).toBeVisible();

    await openChat(bob.page, alice);
    await expect(bubble(bob.page, 'Blue ticks?')).toBeVisible();
    await readOnServer(bob, alice, 'Blue ticks?');
    await send(bob.page, 'Read it');
    await expect(bubble(alice.page, 'Read it')).toBeVisible();

    await expect(tick(mine, 'Delivered')).toBeVisible();
    await expect(tick(mine, 'Read')).toHaveCount(0);
    await alice.page.reload();
    await expect(tick(bubble(alice.page, 'Blue ticks?'), 'Delivered')).toBeVisible();
    await expect(tick(bubble(alice.page, 'Blue ticks?'), 'Read')).toHaveCount(0);
  });

  test('last seen off: alice sees "Last seen recently" when bob is away, instead of a time', async ({ people }) => {
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    await openChat(alice.page, bob);
    await send(alice.page, 'Hi');

    // With last seen on, bob leaving shows a time.
    await bob.page.goto('/home');
    await expect(presence(alice.page)).toHaveText('Online');
    await bob.page.close();
    await expect(presence(alice.page)).toHaveText(/^Last seen today at \d{1,2}:\d{2}\s[AP]M$/);

    // Bob comes back and hides his last seen.
    const back = await bob.context.newPage();
    await openPrivacy(back);
    await expect(presence(alice.page)).toHaveText('Online');
    await setToggle(back, 'Last Seen', false);
    await expect(presence(alice.page)).toHaveText('Online');
    await back.close();
    await expect(presence(alice.page)).toHaveText('Last seen recently');
    await alice.page.reload();
    await expect(presence(alice.page)).toHaveText('Last seen recently');

    // Bob, who hides his, does not see alice's either.
    const again = await bob.context.newPage();
    await openChat(again, alice);
    await expect(presence(again)).toHaveText('Online');
    await alice.page.close();
    await expect(presence(again)).toHaveText('Last seen recently');
  });
});

test.describe('chat PIN', () => {
  function region(page: Page, name: string) {
    return page.getByRole('region', { name, exact: true });
  }

  async function verifyPin(page: Page, pin: string): Promise<number> {
    return (await page.request.post('/api/me/pin/verify', { data: { pin } })).status();
  }

  test('set, change (with the account password) and remove', async ({ people }) => {
    const me = await people.person('pin');
    const page = me.page;
    await openPrivacy(page);

    // No PIN yet: only the Set PIN form.
    const set = region(page, 'Set PIN');
    await expect(set).toBeVisible();
    await expect(region(page, 'Change PIN')).toHaveCount(0);
    await expect(region(page, 'Remove PIN')).toHaveCount(0);
    const pin = set.getByLabel('New PIN', { exact: true });
    const confirm = set.getByLabel('Confirm PIN', { exact: true });
    for (const input of [pin, confirm]) {
      await expect(input).toHaveAttribute('type', 'password');
      await expect(input).toHaveAttribute('inputmode', 'numeric');
      await expect(input).toHaveAttribute('maxlength', '6');
    }
    await pin.pressSequentially('12a3');
    await expect(pin).toHaveValue('123');
    await set.getByRole('button', { name: 'Set PIN' }).click();
    await expect(pin).toHaveAccessibleDescription('PIN must be exactly 6 digits');
    await expect(pin).toBeFocused();
    await pin.fill('123456');
    await expect(pin).not.toHaveAttribute('aria-invalid', 'true');
    await confirm.fill('654321');
    await set.getByRole('button', { name: 'Set PIN' }).click();
    await expect(confirm).toHaveAccessibleDescription('PINs do not match');
    await expect(confirm).toBeFocused();
    await confirm.fill('123456');
    await set.getByRole('button', { name: 'Set PIN' }).click();
    await expect(toast(page, 'PIN Set')).toBeVisible();
    expect(await verifyPin(page, '123456')).toBe(200);

    // With a PIN: change and remove, and what to do when it is forgotten.
    await expect(region(page, 'Set PIN')).toHaveCount(0);
    await expect(page.getByText('Forgot your PIN?')).toBeVisible();
    await expect(page.getByText(/account password replaces it/)).toBeVisible();
    await expect(page.getByText(/unlocks all your locked chats/).first()).toBeVisible();
    const change = region(page, 'Change PIN');
    await change.getByLabel('New PIN', { exact: true }).fill('222222');
    await change.getByLabel('Confirm New PIN', { exact: true }).fill('222222');
    await change.getByRole('button', { name: 'Change PIN' }).click();
    const changePassword = change.getByLabel('Account Password', { exact: true });
    await expect(changePassword).toHaveAccessibleDescription(
      'Enter your account password to change or remove your PIN',
    );
    await changePassword.fill('not-my-password');
    await change.getByRole('button', { name: 'Change PIN' }).click();
    await expect(changePassword).toHaveAccessibleDescription('The password is incorrect');
    await expect(toast(page, 'Failed to Change PIN')).toContainText('The password is incorrect');
    expect(await verifyPin(page, '123456')).toBe(200);

    await changePassword.fill(me.user.password);
    await change.getByRole('button', { name: 'Change PIN' }).click();
    await expect(toast(page, 'PIN Changed')).toBeVisible();
    await expect(change.getByLabel('New PIN', { exact: true })).toHaveValue('');
    await expect(changePassword).toHaveValue('');
    expect(await verifyPin(page, '222222')).toBe(200);
    expect(await verifyPin(page, '123456')).toBe(403);

    const remove = region(page, 'Remove PIN');
    const removePassword = remove.getByLabel('Account Password', { exact: true });
    await removePassword.fill('wrong-again');
    await remove.getByRole('button', { name: 'Remove PIN' }).click();
    await expect(removePassword).toHaveAccessibleDescription('The password is incorrect');
    await expect(toast(page, 'Failed to Remove PIN')).toBeVisible();
    await removePassword.fill(me.user.password);
    await remove.getByRole('button', { name: 'Remove PIN' }).click();
    await expect(toast(page, 'PIN Removed')).toBeVisible();
    await expect(region(page, 'Set PIN')).toBeVisible();
    await expect(region(page, 'Remove PIN')).toHaveCount(0);

    await page.reload();
    await expect(region(page, 'Set PIN')).toBeVisible();
    expect((await (await page.request.get('/api/me/privacy')).json()).hasPin).toBe(false);
  });

  test('after too many wrong PINs it says until when PIN checks are paused', async ({ people }) => {
    const me = await people.person('pin');
    const page = me.page;
    const set = await page.request.put('/api/me/pin', { data: { pin: '135790' } });
    expect(set.status()).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push(await verifyPin(page, '000000'));
    expect(statuses.at(-1)).toBe(429);

    await openPrivacy(page);
    const notice = page.getByRole('status').filter({ hasText: 'PIN checks are paused until' });
    await expect(notice).toBeVisible();
    const time = (await notice.textContent())?.match(/until (.+?)\./)?.[1] ?? '';
    expect(time).toMatch(CLOCK);

    // A new PIN (with the account password) ends the pause.
    const change = region(page, 'Change PIN');
    await change.getByLabel('New PIN', { exact: true }).fill('246802');
    await change.getByLabel('Confirm New PIN', { exact: true }).fill('246802');
    await change.getByLabel('Account Password', { exact: true }).fill(me.user.password);
    await change.getByRole('button', { name: 'Change PIN' }).click();
    await expect(toast(page, 'PIN Changed')).toBeVisible();
    await expect(notice).toHaveCount(0);
    expect(await verifyPin(page, '246802')).toBe(200);
  });

  test('screenshots at 1280 and 390 px, without sideways scrolling on the phone', async ({ people }) => {
    const me = await people.person('pin');
    const page = me.page;
    const noScroll = async () => {
      await page.evaluate(() => window.scrollTo(0, 0));
      if (page.viewportSize()?.width === 390) await expectNoSidewaysScroll(page);
    };
    await openPrivacy(page);
    await expect(region(page, 'Set PIN')).toBeVisible();
    await shotSizes(page, 'privacy-settings', noScroll);

    const set = region(page, 'Set PIN');
    await set.getByLabel('New PIN', { exact: true }).fill('123456');
    await set.getByLabel('Confirm PIN', { exact: true }).fill('123456');
    await set.getByRole('button', { name: 'Set PIN' }).click();
    await expect(region(page, 'Change PIN')).toBeVisible();
    const change = region(page, 'Change PIN');
    await change.getByLabel('New PIN', { exact: true }).fill('12');
    await change.getByRole('button', { name: 'Change PIN' }).click();
    await expect(change.getByLabel('New PIN', { exact: true })).toHaveAccessibleDescription(
      'PIN must be exactly 6 digits',
    );
    await shotSizes(page, 'privacy-settings-pin', noScroll);
  });
});

/**
 * Locked chats (spec section 2 "Locked chats", section 4 "Locked chats screen", section 5
 * PIN rules): Lock needs a PIN, /locked behind the PIN gate, Unlock, the lock-out after
 * five wrong PINs, and that a locked chat's text reaches the browser only after the PIN.
 */
import type { Page } from '@playwright/test';
import {
  enterLocked,
  gate,
  lockedLink,
  lockedRow,
  lockedRows,
  lockFromHome,
  openHome,
  PIN,
  rowMenu,
  setPin,
  toast,
  write,
} from './archive-lock-helpers.ts';
import { bubble, chatRow, expect, shotSizes, test, unreadBadge } from './chat-helpers.ts';

test.describe('locked chats', () => {
  test('Lock without a PIN sends the user to /privacy-settings and leaves the chat in place', async ({ people }) => {
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    await write(bob, alice, 'Lock me');
    const a = alice.page;
    await openHome(a);
    await rowMenu(a, chatRow(a, bob.handle), bob.handle, 'Lock', 'right-click');
    await expect(toast(a, 'PIN Required')).toContainText('Set a PIN in Privacy settings first');
    await expect(a).toHaveURL('/privacy-settings');
    await openHome(a);
    await expect(chatRow(a, bob.handle)).toContainText('Lock me');
    await expect(lockedLink(a)).toHaveCount(0);
  });

  test('with a PIN: Lock hides the chat; /locked asks for exactly 6 digits; wrong and right PIN; Unlock', async ({
    people,
  }) => {
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    await write(bob, alice, 'Keep this private');
    const a = alice.page;
    await setPin(a);
    await expect(lockedLink(a)).toHaveCount(0);
    await lockFromHome(a, bob);
    await expect(a.getByText('Keep this private')).toHaveCount(0);
    await expect(a.getByText('No other conversations')).toBeVisible();

    await lockedLink(a).click();
    await expect(a).toHaveURL('/locked');
    await expect(a.getByRole('heading', { level: 1, name: 'Locked' })).toBeVisible();
    const g = gate(a);
    await expect(g.heading).toHaveText('Enter PIN');
    await expect(g.input).toBeFocused();
    await expect(g.input).toHaveAttribute('type', 'password');
    await expect(g.input).toHaveAttribute('maxlength', '6');
    await expect(g.unlock).toBeDisabled();
    await expect(lockedRows(a)).toHaveCount(0);

    await g.input.pressSequentially('12a34');
    await expect(g.input).toHaveValue('1234');
    await expect(g.unlock).toBeDisabled();
    await g.input.pressSequentially('5');
    await expect(g.unlock).toBeDisabled();
    await g.input.pressSequentially('99');
    await expect(g.input).toHaveValue('123459');
    await expect(g.unlock).toBeEnabled();

    // Wrong: a destructive toast, the input cleared, still the gate.
    await g.unlock.click();
    await expect(toast(a, 'Invalid PIN')).toContainText('Please try again');
    await expect(g.input).toHaveValue('');
    await expect(a.getByRole('alert').filter({ hasText: 'Invalid PIN - Please try again' })).toBeVisible();
    await expect(g.unlock).toBeDisabled();
    await expect(lockedRows(a)).toHaveCount(0);

    // Right (Enter submits): the list, with the last message now that the PIN was given.
    await g.input.fill(PIN);
    await g.input.press('Enter');
    await expect(toast(a, 'Access Granted')).toContainText('PIN verified successfully');
    await expect(g.input).toHaveCount(0);
    const row = lockedRow(a, bob.handle);
    await expect(lockedRows(a)).toHaveCount(1);
    await expect(row).toContainText('Keep this private');
    await expect(unreadBadge(row)).toHaveText('1 unread');

    await row.getByRole('button', { name: 'Unlock', exact: true }).click();
    await expect(toast(a, 'Chat Unlocked')).toBeVisible();
    await expect(lockedRows(a)).toHaveCount(0);
    await expect(a.getByText('No locked chats')).toBeVisible();

    await a.getByRole('button', { name: 'Back' }).click();
    await expect(a).toHaveURL('/home');
    await expect(chatRow(a, bob.handle)).toContainText('Keep this private');
    await expect(lockedLink(a)).toHaveCount(0);
  });

  test('the gate asks on every visit; Cancel goes to /home, Forgot PIN? to /privacy-settings; No locked chats', async ({
    people,
  }) => {
    const alice = await people.person('alice');
    const a = alice.page;
    await setPin(a);
    await a.goto('/locked');
    await gate(a).cancel.click();
    await expect(a).toHaveURL('/home');

    await a.goto('/locked');
    await gate(a).forgot.click();
    await expect(a).toHaveURL('/privacy-settings');

    await enterLocked(a);
    await expect(a.getByText('No locked chats')).toBeVisible();
    // Leaving and coming back asks again, though the server's grant still runs.
    await a.getByRole('button', { name: 'Back' }).click();
    await expect(a).toHaveURL('/home');
    await a.goto('/locked');
    await expect(gate(a).heading).toBeVisible();
    await expect(a.getByText('No locked chats')).toHaveCount(0);
  });

  test('five wrong PINs lock the gate for 15 minutes: even the right PIN is refused', async ({ people }) => {
    const alice = await people.person('alice');
    const a = alice.page;
    await setPin(a);
    // A second tab whose gate was opened before the lock-out.
    const other = await alice.context.newPage();
    await Promise.all([
      other.waitForResponse((r) => new URL(r.url()).pathname === '/api/me/privacy'),
      other.goto('/locked'),
    ]);
    await expect(gate(other).input).toBeEnabled();

    await a.goto('/locked');
    const g = gate(a);
    for (let i = 1; i <= 4; i++) {
      await g.input.fill('000000');
      await g.unlock.click();
      await expect(toast(a, 'Invalid PIN').first()).toBeVisible();
      await expect(g.input).toHaveValue('');
      await expect(a.getByRole('alert')).toContainText(`${5 - i} attempt`);
      await expect(g.input).toBeEnabled();
    }
    await g.input.fill('000000');
    await g.unlock.click();
    const lockedOut = (p: Page) =>
      p.getByRole('alert').filter({ hasText: 'Too many wrong PINs. Try again in 15 minutes.' });
    await expect(lockedOut(a)).toBeVisible();
    await expect(toast(a, 'Too Many Attempts')).toBeVisible();
    await expect(g.input).toBeDisabled();
    await expect(g.unlock).toBeDisabled();

    // The right PIN is refused as well.
    await gate(other).input.fill(PIN);
    await gate(other).unlock.click();
    await expect(lockedOut(other)).toBeVisible();
    await expect(toast(other, 'Too Many Attempts')).toBeVisible();
    await expect(toast(other, 'Access Granted')).toHaveCount(0);
    await expect(gate(other).input).toBeDisabled();
    await expect(lockedRows(other)).toHaveCount(0);
    await expect(other.getByText('No locked chats')).toHaveCount(0);
    expect((await a.request.post('/api/me/pin/verify', { data: { pin: PIN } })).status()).toBe(429);

    // A new visit states the lock-out at once.
    await a.goto('/locked');
    await expect(lockedOut(a)).toBeVisible();
    await expect(g.input).toBeDisabled();
    await expect(g.unlock).toBeDisabled();
    await expect(g.cancel).toBeEnabled();
  });

  test('without a PIN the gate says so at once, with a way to set one', async ({ people }) => {
    const alice = await people.person('alice');
    const a = alice.page;
    await a.goto('/locked');
    await expect(a.getByText('You have not set a PIN.')).toBeVisible();
    await expect(gate(a).input).toHaveCount(0);
    await shotSizes(a, 'locked-no-pin');
    await a.getByRole('link', { name: 'Set a PIN' }).click();
    await expect(a).toHaveURL('/privacy-settings');
    await a.goto('/locked');
    await gate(a).cancel.click();
    await expect(a).toHaveURL('/home');
  });

  test("a locked chat's text never reaches the browser before the PIN: not on /home, not in /chat, not in frames", async ({
    people,
  }) => {
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    await write(bob, alice, 'Before the lock');
    await setPin(alice.page);
    await lockFromHome(alice.page, bob);

    // A fresh tab of Alice's that records every frame it receives.
    const a = await alice.context.newPage();
    const frames: string[] = [];
    a.on('websocket', (ws) => ws.on('framereceived', (f) => frames.push(String(f.payload))));
    await openHome(a);
    await expect(lockedLink(a)).toBeVisible();

    const secret = `Top secret ${Date.now().toString(36)}`;
    await write(bob, alice, secret);
    // Alice's tab was told about the message (its text masked).
    await expect
      .poll(() => frames.some((f) => f.includes('"kind":"message"') && f.includes(`"senderId":"${bob.id}"`)))
      .toBe(true);
    await expect(a.locator('body')).not.toContainText(secret);
    await expect(chatRow(a, bob.handle)).toHaveCount(0);

    // Opening the chat directly asks for the PIN first and shows none of its messages.
    await a.goto(`/chat/${bob.id}`);
    const g = gate(a);
    await expect(g.heading).toBeVisible();
    await expect(a.locator('body')).not.toContainText(secret);
    await expect(a.locator('body')).not.toContainText('Before the lock');
    await expect(a.locator('[data-message-id]')).toHaveCount(0);
    expect(frames.filter((f) => f.includes(secret) || f.includes('Before the lock'))).toEqual([]);
    // Not even sealed: no ciphertext of the locked chat reached the tab.
    expect(frames.filter((f) => f.includes('"ct":"'))).toEqual([]);

    await g.input.fill(PIN);
    await g.unlock.click();
    await expect(toast(a, 'Access Granted')).toBeVisible();
    await expect(bubble(a, secret)).toBeVisible();
    await expect(bubble(a, 'Before the lock')).toBeVisible();
    // The recording works: the sealed text arrives once the PIN is given (the text itself
    // never travels: the tab opens it).
    expect(frames.some((f) => f.includes('"ct":"'))).toBe(true);
    expect(frames.filter((f) => f.includes(secret))).toEqual([]);
  });

  test('a chat opened from /locked does not ask for the PIN again', async ({ people }) => {
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    await write(bob, alice, 'Open from the list');
    const a = alice.page;
    await setPin(a);
    await lockFromHome(a, bob);
    await enterLocked(a);
    await lockedRow(a, bob.handle).getByRole('link').click();
    await expect(a).toHaveURL(`/chat/${bob.id}`);
    await expect(bubble(a, 'Open from the list')).toBeVisible();
    await expect(gate(a).input).toHaveCount(0);
  });
});

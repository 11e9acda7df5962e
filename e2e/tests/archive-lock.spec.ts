/**
 * Archived and locked chats (spec section 2 "Chat list", "Archived chats", "Locked chats";
 * section 4 "Chat visibility", "Locked chats screen"; section 5 PIN rules; section 8 toasts):
 * the row menu's Archive and Lock, /archive with Unarchive, /locked behind the PIN gate
 * with Unlock, the lock-out after five wrong PINs, and that a locked chat's text reaches
 * the browser only after the PIN.
 */
import type { Locator, Page } from '@playwright/test';
import {
  bubble,
  CLOCK,
  chatRow,
  chatRows,
  expect,
  openChat,
  type Person,
  send,
  setPrivacy,
  shotSizes,
  test,
  unreadBadge,
} from './chat-helpers.ts';
import { scrollWidth } from './screen-helpers.ts';

const PIN = '123456';

/** `from` writes `text` to `to` (from their chat page) and waits until it is stored. */
async function write(from: Person, to: Person, text: string): Promise<void> {
  if (!from.page.url().endsWith(`/chat/${to.id}`)) await openChat(from.page, to);
  await send(from.page, text);
  await expect(bubble(from.page, text).getByRole('img', { name: 'Pending' })).toHaveCount(0);
}

/** Sets the user's first PIN through the API (the page's context has the session). */
async function setPin(page: Page, pin = PIN): Promise<void> {
  const res = await page.request.put('/api/me/pin', { data: { pin } });
  expect(res.status(), await res.text()).toBe(200);
}

function toast(page: Page, title: string): Locator {
  return page.locator('[data-sonner-toast]').filter({ hasText: title });
}

/** The 'Archived' and 'Locked' shortcuts of /home. */
function archivedLink(page: Page): Locator {
  return page.getByRole('link', { name: /^Archived\b/ });
}
function lockedLink(page: Page): Locator {
  return page.getByRole('link', { name: /^Locked\b/ });
}

function archivedRows(page: Page): Locator {
  return page.getByRole('list', { name: 'Archived chats' }).getByRole('listitem');
}
function archivedRow(page: Page, handle: string): Locator {
  return archivedRows(page).filter({ has: page.getByText(handle, { exact: true }) });
}
function lockedRows(page: Page): Locator {
  return page.getByRole('list', { name: 'Locked chats' }).getByRole('listitem');
}
function lockedRow(page: Page, handle: string): Locator {
  return lockedRows(page).filter({ has: page.getByText(handle, { exact: true }) });
}

/** Opens the row menu of `handle` (by its ⋯ button or a right-click) and picks `item`. */
async function rowMenu(page: Page, row: Locator, handle: string, item: string, how: 'button' | 'right-click') {
  if (how === 'button') await row.getByRole('button', { name: `Chat options for ${handle}` }).click();
  else await row.getByRole('link').click({ button: 'right' });
  const menu = page.getByRole('menu', { name: `Chat options for ${handle}` });
  await menu.getByRole('menuitem', { name: item, exact: true }).click();
  await expect(menu).toHaveCount(0);
}

async function openHome(page: Page): Promise<void> {
  await page.goto('/home');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
}

/** The PIN gate's parts. */
function gate(page: Page) {
  return {
    heading: page.getByRole('heading', { name: /Enter PIN/ }),
    input: page.getByRole('textbox', { name: 'PIN', exact: true }),
    unlock: page.getByRole('button', { name: 'Unlock', exact: true }),
    cancel: page.getByRole('button', { name: 'Cancel', exact: true }),
    forgot: page.getByRole('link', { name: 'Forgot PIN?' }),
  };
}

/** Opens /locked and passes the gate with `pin`. */
async function enterLocked(page: Page, pin = PIN): Promise<void> {
  await page.goto('/locked');
  const g = gate(page);
  await expect(g.heading).toBeVisible();
  await g.input.fill(pin);
  await g.unlock.click();
  await expect(toast(page, 'Access Granted')).toBeVisible();
  await expect(g.input).toHaveCount(0);
}

/** Locks the chat with `peer` from /home's row menu (a PIN must exist). */
async function lockFromHome(page: Page, peer: Person): Promise<void> {
  await openHome(page);
  await rowMenu(page, chatRow(page, peer.handle), peer.handle, 'Lock', 'button');
  await expect(toast(page, 'Chat Locked')).toBeVisible();
  await expect(chatRow(page, peer.handle)).toHaveCount(0);
}

test.describe('archived chats', () => {
  test('Archive (⋯ button and right-click) moves chats from /home to /archive, newest first', async ({ people }) => {
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    const carol = await people.person('carol');
    await write(bob, alice, 'Bob says hi');
    await write(carol, alice, 'Carol says hi');

    const a = alice.page;
    await openHome(a);
    await expect(chatRows(a)).toHaveCount(2);
    // No archived chats: no shortcut, and the title does not lead anywhere.
    await expect(archivedLink(a)).toHaveCount(0);
    await a.getByRole('heading', { level: 1 }).getByRole('button').click();
    await expect(a).toHaveURL('/home');

    await rowMenu(a, chatRow(a, bob.handle), bob.handle, 'Archive', 'button');
    await expect(toast(a, 'Chat Archived')).toBeVisible();
    await expect(chatRow(a, bob.handle)).toHaveCount(0);
    await expect(chatRows(a)).toHaveCount(1);
    await expect(archivedLink(a)).toBeVisible();

    await rowMenu(a, chatRow(a, carol.handle), carol.handle, 'Archive', 'right-click');
    await expect(chatRow(a, carol.handle)).toHaveCount(0);
    await expect(a.getByRole('list', { name: 'Chats' })).toHaveCount(0);
    await expect(lockedLink(a)).toHaveCount(0);

    // The shortcut opens the archive: newest first, with handle, time and last message.
    await archivedLink(a).click();
    await expect(a).toHaveURL('/archive');
    await expect(a.getByRole('heading', { level: 1, name: 'Archived' })).toBeVisible();
    await expect(archivedRows(a)).toHaveCount(2);
    await expect(archivedRows(a).nth(0)).toContainText(carol.handle);
    await expect(archivedRows(a).nth(1)).toContainText(bob.handle);
    const bobRow = archivedRow(a, bob.handle);
    await expect(bobRow).toContainText('Bob says hi');
    await expect(bobRow.getByText(CLOCK)).toBeVisible();
    await expect(bobRow.getByRole('button', { name: 'Unarchive', exact: true })).toBeVisible();
    // The archive's menu offers Unarchive and Lock.
    await bobRow.getByRole('button', { name: `Chat options for ${bob.handle}` }).click();
    await expect(a.getByRole('menu', { name: `Chat options for ${bob.handle}` }).getByRole('menuitem')).toHaveText([
      'Unarchive',
      'Lock',
    ]);
    await a.keyboard.press('Escape');

    // Back goes home; the title opens the archive too when there is one.
    await a.getByRole('button', { name: 'Back' }).click();
    await expect(a).toHaveURL('/home');
    await a.getByRole('heading', { level: 1 }).getByRole('button').click();
    await expect(a).toHaveURL('/archive');

    // Tapping a row opens the chat.
    await archivedRow(a, bob.handle).getByRole('link').click();
    await expect(a).toHaveURL(`/chat/${bob.id}`);
    await expect(bubble(a, 'Bob says hi')).toBeVisible();
  });

  test('a new message keeps an archived chat archived, with its unread count; Unarchive brings it back', async ({
    people,
  }) => {
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    await write(bob, alice, 'First words');

    const a = alice.page;
    await openHome(a);
    await rowMenu(a, chatRow(a, bob.handle), bob.handle, 'Archive', 'right-click');
    await expect(toast(a, 'Chat Archived')).toBeVisible();
    await archivedLink(a).click();
    const row = archivedRow(a, bob.handle);
    await expect(row).toContainText('First words');
    await expect(unreadBadge(row)).toHaveText('1 unread');

    // Live, while Alice looks at the archive.
    await write(bob, alice, 'Still there?');
    await expect(row).toContainText('Still there?');
    await expect(unreadBadge(row)).toHaveText('2 unread');
    await write(bob, alice, 'Hello?');
    await expect(row).toContainText('Hello?');
    await expect(unreadBadge(row)).toHaveText('3 unread');

    // Still archived on /home: hidden, and the shortcut carries the unread count.
    await openHome(a);
    await expect(chatRow(a, bob.handle)).toHaveCount(0);
    await expect(archivedLink(a)).toContainText('3 unread');
    await a.goto('/archive');
    await expect(unreadBadge(archivedRow(a, bob.handle))).toHaveText('3 unread');

    await row.getByRole('button', { name: 'Unarchive', exact: true }).click();
    await expect(toast(a, 'Chat Unarchived')).toBeVisible();
    await expect(archivedRows(a)).toHaveCount(0);
    await expect(a.getByText('No archived conversations')).toBeVisible();

    await openHome(a);
    await expect(chatRow(a, bob.handle)).toContainText('Hello?');
    await expect(unreadBadge(chatRow(a, bob.handle))).toHaveText('3 unread');
    await expect(archivedLink(a)).toHaveCount(0);
  });

  test('an empty archive says No archived conversations', async ({ people }) => {
    const alice = await people.person('alice');
    await alice.page.goto('/archive');
    await expect(alice.page.getByRole('heading', { level: 1, name: 'Archived' })).toBeVisible();
    await expect(alice.page.getByText('No archived conversations')).toBeVisible();
    await alice.page.getByRole('button', { name: 'Back' }).click();
    await expect(alice.page).toHaveURL('/home');
  });

  test('a chat locked from the archive goes to /locked, and comes back to /home when unlocked', async ({ people }) => {
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    await write(bob, alice, 'Archive then lock');
    const a = alice.page;
    await setPin(a);
    await openHome(a);
    await rowMenu(a, chatRow(a, bob.handle), bob.handle, 'Archive', 'button');
    await archivedLink(a).click();
    await rowMenu(a, archivedRow(a, bob.handle), bob.handle, 'Lock', 'right-click');
    await expect(toast(a, 'Chat Locked')).toBeVisible();
    await expect(a.getByText('No archived conversations')).toBeVisible();

    await enterLocked(a);
    await lockedRow(a, bob.handle).getByRole('button', { name: 'Unlock', exact: true }).click();
    await expect(toast(a, 'Chat Unlocked')).toBeVisible();
    await openHome(a);
    await expect(chatRow(a, bob.handle)).toContainText('Archive then lock');
    await expect(archivedLink(a)).toHaveCount(0);
    await expect(lockedLink(a)).toHaveCount(0);
  });
});

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

    await g.input.fill(PIN);
    await g.unlock.click();
    await expect(toast(a, 'Access Granted')).toBeVisible();
    await expect(bubble(a, secret)).toBeVisible();
    await expect(bubble(a, 'Before the lock')).toBeVisible();
    // The recording works: the text arrives once the PIN is given.
    expect(frames.some((f) => f.includes(secret))).toBe(true);
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

test('screenshots of /archive and /locked (items, empty, gate, lock-out) without horizontal scroll', async ({
  people,
}) => {
  const alice = await people.person('alice');
  const bob = await people.person('bob');
  const carol = await people.person('carol');
  await write(bob, alice, 'Here is a rather long message that should be cut off nicely at the end of the row');
  await write(carol, alice, 'Short one');
  await write(carol, alice, 'And another');
  const a = alice.page;
  await setPin(a);

  await a.goto('/archive');
  await expect(a.getByText('No archived conversations')).toBeVisible();
  await shotSizes(a, 'archive-empty', async () => {
    expect(await scrollWidth(a)).toBeLessThanOrEqual(a.viewportSize()?.width ?? 0);
  });

  await openHome(a);
  await rowMenu(a, chatRow(a, bob.handle), bob.handle, 'Archive', 'button');
  await expect(chatRow(a, bob.handle)).toHaveCount(0);
  await rowMenu(a, chatRow(a, carol.handle), carol.handle, 'Archive', 'button');
  await expect(chatRow(a, carol.handle)).toHaveCount(0);
  await a.goto('/archive');
  await expect(archivedRows(a)).toHaveCount(2);
  await shotSizes(a, 'archive-list', async () => {
    expect(await scrollWidth(a)).toBeLessThanOrEqual(a.viewportSize()?.width ?? 0);
  });

  await a.goto('/locked');
  await expect(gate(a).heading).toBeVisible();
  await shotSizes(a, 'locked-gate', async () => {
    expect(await scrollWidth(a)).toBeLessThanOrEqual(a.viewportSize()?.width ?? 0);
  });

  await enterLocked(a);
  await expect(a.getByText('No locked chats')).toBeVisible();
  await shotSizes(a, 'locked-empty', async () => {
    expect(await scrollWidth(a)).toBeLessThanOrEqual(a.viewportSize()?.width ?? 0);
  });

  await a.goto('/archive');
  await rowMenu(a, archivedRow(a, bob.handle), bob.handle, 'Lock', 'button');
  await rowMenu(a, archivedRow(a, carol.handle), carol.handle, 'Lock', 'button');
  await expect(a.getByText('No archived conversations')).toBeVisible();
  await enterLocked(a);
  await expect(lockedRows(a)).toHaveCount(2);
  await expect(lockedRow(a, carol.handle)).toContainText('And another');
  await shotSizes(a, 'locked-list', async () => {
    expect(await scrollWidth(a)).toBeLessThanOrEqual(a.viewportSize()?.width ?? 0);
  });

  // The lock-out, on a second account so the first keeps its PIN.
  const dave = await people.person('dave');
  await setPin(dave.page);
  await dave.page.goto('/locked');
  for (let i = 0; i < 5; i++) {
    await gate(dave.page).input.fill('000000');
    await gate(dave.page).unlock.click();
    await expect(gate(dave.page).input).toHaveValue('');
  }
  await expect(dave.page.getByRole('alert')).toContainText('Too many wrong PINs');
  await shotSizes(dave.page, 'locked-lockout', async () => {
    expect(await scrollWidth(dave.page)).toBeLessThanOrEqual(dave.page.viewportSize()?.width ?? 0);
  });
});

test('/home with the Archived and Locked shortcuts and the bell count, at both sizes', async ({ people }) => {
  const alice = await people.person('alice');
  const bob = await people.person('bob');
  const carol = await people.person('carol');
  const dave = await people.person('dave');
  await write(bob, alice, 'Archive me');
  await write(carol, alice, 'Lock me');
  await write(dave, alice, 'Stay on the list');
  const a = alice.page;
  await setPin(a);
  await openHome(a);
  await rowMenu(a, chatRow(a, bob.handle), bob.handle, 'Archive', 'button');
  await expect(chatRow(a, bob.handle)).toHaveCount(0);
  await lockFromHome(a, carol);
  // A stranger's request to Alice, who takes messages from contacts only, rings the bell.
  await setPrivacy(a, { requireRequest: true });
  const erin = await people.person('erin');
  await openChat(erin.page, alice);
  const input = erin.page.getByRole('textbox', { name: 'Message', exact: true });
  await input.fill('Hello from Erin');
  await input.press('Enter');
  await expect(erin.page.getByRole('region', { name: 'Message request' })).toBeVisible();
  await expect(a.getByRole('link', { name: /Notifications, 1 unread/ })).toBeVisible();
  await expect(archivedLink(a)).toBeVisible();
  await expect(lockedLink(a)).toBeVisible();
  await expect(chatRows(a)).toHaveCount(1);
  await shotSizes(a, 'home-shortcuts');
});

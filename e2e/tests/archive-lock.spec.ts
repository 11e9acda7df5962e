import {
  archivedLink,
  archivedRow,
  archivedRows,
  enterLocked,
  gate,
  lockedLink,
  lockedRow,
  lockedRows,
  lockFromHome,
  openHome,
  rowMenu,
  setPin,
  toast,
  write,
} from './archive-lock-helpers.ts';
import {
  bubble,
  CLOCK,
  chatRow,
  chatRows,
  expect,
  openChat,
  setPrivacy,
  shotSizes,
  test,
  unreadBadge,
} from './chat-helpers.ts';
import { expectNoSidewaysScroll } from './screen-helpers.ts';

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
    // The archive's menu offers the mutes, Mark as read or unread, Unarchive and Lock (no Pin: an archived chat is not pinned).
    await bobRow.getByRole('button', { name: `Chat options for ${bob.handle}` }).click();
    await expect(a.getByRole('menu', { name: `Chat options for ${bob.handle}` }).getByRole('menuitem')).toHaveText([
      'Mute for 8 hours',
      'Mute for 1 week',
      'Mute always',
      /^Mark as (un)?read$/,
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

test('screenshots of /archive and /locked (items, empty, gate, lock-out) without horizontal scroll', async ({
  people,
}) => {
  // Four people and ten screenshots, each at two window sizes.
  test.setTimeout(180_000);
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
    await expectNoSidewaysScroll(a);
  });

  await openHome(a);
  await rowMenu(a, chatRow(a, bob.handle), bob.handle, 'Archive', 'button');
  await expect(chatRow(a, bob.handle)).toHaveCount(0);
  await rowMenu(a, chatRow(a, carol.handle), carol.handle, 'Archive', 'button');
  await expect(chatRow(a, carol.handle)).toHaveCount(0);
  await a.goto('/archive');
  await expect(archivedRows(a)).toHaveCount(2);
  await shotSizes(a, 'archive-list', async () => {
    await expectNoSidewaysScroll(a);
  });

  await a.goto('/locked');
  await expect(gate(a).heading).toBeVisible();
  await shotSizes(a, 'locked-gate', async () => {
    await expectNoSidewaysScroll(a);
  });

  await enterLocked(a);
  await expect(a.getByText('No locked chats')).toBeVisible();
  await shotSizes(a, 'locked-empty', async () => {
    await expectNoSidewaysScroll(a);
  });

  await a.goto('/archive');
  await rowMenu(a, archivedRow(a, bob.handle), bob.handle, 'Lock', 'button');
  await rowMenu(a, archivedRow(a, carol.handle), carol.handle, 'Lock', 'button');
  await expect(a.getByText('No archived conversations')).toBeVisible();
  await enterLocked(a);
  await expect(lockedRows(a)).toHaveCount(2);
  await expect(lockedRow(a, carol.handle)).toContainText('And another');
  await shotSizes(a, 'locked-list', async () => {
    await expectNoSidewaysScroll(a);
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
    await expectNoSidewaysScroll(dave.page);
  });
});

test('/home with the Archived and Locked shortcuts and the bell count, at both sizes', async ({ people }) => {
  // Five people, a PIN, a privacy change and a request before the shots.
  test.setTimeout(180_000);
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

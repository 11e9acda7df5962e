/**
 * The chat list (/home) and the contacts (/contacts) with real chats and other people
 * online or not (spec section 2 "Chat list", "Contacts"): empty state, search, order,
 * the row menu, and the users list with presence.
 */
import { bubble, chatRow, chatRows, expect, openChat, type Person, runTag, send, test } from './chat-helpers.ts';

/** `from` writes `text` to `to` (from their chat page) and waits until it is stored. */
async function write(from: Person, to: Person, text: string): Promise<void> {
  await openChat(from.page, to);
  await send(from.page, text);
  await expect(bubble(from.page, text).getByRole('img', { name: 'Pending' })).toHaveCount(0);
}

/** The menu of a chat with an unread message in the main list. */
const ROW_MENU = ['Pin', 'Mute for 8 hours', 'Mute for 1 week', 'Mute always', 'Mark as read', 'Archive', 'Lock'];

test.describe('chat list', () => {
  test('a new user sees the empty state and a button to start a chat', async ({ people }) => {
    const alice = await people.person('alice');
    await alice.page.goto('/home');
    await expect(alice.page.getByText('No conversations yet')).toBeVisible();
    await expect(alice.page.getByText('Search for users to start chatting')).toBeVisible();
    await expect(alice.page.getByRole('list', { name: 'Chats' })).toHaveCount(0);
    await alice.page.getByRole('link', { name: 'New chat' }).click();
    await expect(alice.page).toHaveURL('/contacts');
  });

  test('the search filters rows by a case-insensitive substring of the username', async ({ people }) => {
    const tag = runTag();
    const alice = await people.person('alice');
    const bob = await people.person('bob', { username: `Bob_${tag}` });
    const carol = await people.person('carol', { username: `carol_${tag}` });
    await write(bob, alice, 'Hi from Bob');
    await write(carol, alice, 'Hi from Carol');

    const a = alice.page;
    await a.goto('/home');
    await expect(chatRows(a)).toHaveCount(2);
    await a.getByRole('button', { name: 'Search' }).click();
    const box = a.getByRole('searchbox', { name: 'Search by username' });
    await expect(box).toBeFocused();

    await box.fill(`bOB_${tag.toUpperCase()}`);
    await expect(chatRows(a)).toHaveCount(1);
    await expect(chatRow(a, bob.handle)).toContainText('Hi from Bob');
    await box.fill(`ARoL_${tag}`);
    await expect(chatRows(a)).toHaveCount(1);
    await expect(chatRow(a, carol.handle)).toBeVisible();
    await box.fill(`@carol_${tag}`);
    await expect(chatRows(a)).toHaveCount(1);
    await expect(chatRow(a, carol.handle)).toBeVisible();
    await box.fill(`_${tag}`);
    await expect(chatRows(a)).toHaveCount(2);

    await box.fill('zz_nobody_zz');
    await expect(chatRows(a)).toHaveCount(0);
    await expect(a.getByText('No users found')).toBeVisible();
    await box.press('Escape');
    await expect(box).toHaveCount(0);
    await expect(chatRows(a)).toHaveCount(2);
  });

  test('rows are newest first: a new message moves its chat to the top', async ({ people }) => {
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    const carol = await people.person('carol');
    await write(bob, alice, 'Bob first');
    await write(carol, alice, 'Carol second');

    const a = alice.page;
    await a.goto('/home');
    await expect(chatRows(a)).toHaveCount(2);
    await expect(chatRows(a).nth(0)).toContainText(carol.handle);
    await expect(chatRows(a).nth(1)).toContainText(bob.handle);

    await send(bob.page, 'Bob again');
    await expect(chatRows(a).nth(0)).toContainText(bob.handle);
    await expect(chatRows(a).nth(0)).toContainText('Bob again');
    await expect(chatRows(a).nth(1)).toContainText(carol.handle);

    // Alice's own message moves the chat up too, with no unread count for her.
    await write(alice, carol, 'Alice to Carol');
    await a.goto('/home');
    await expect(chatRows(a).nth(0)).toContainText(carol.handle);
    await expect(chatRows(a).nth(0)).toContainText('Alice to Carol');
    await expect(
      chatRows(a)
        .nth(0)
        .getByText(/unread$/),
    ).toHaveCount(0);
    await expect(chatRows(a).nth(1)).toContainText(bob.handle);
  });

  test('each row has a menu with Pin, the mutes, Mark as read, Archive and Lock, by its ⋯ button and by a right-click', async ({
    people,
  }) => {
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    await write(bob, alice, 'Menu time');
    const a = alice.page;
    await a.goto('/home');
    const row = chatRow(a, bob.handle);
    // bob is still on his chat page: his avatar has the online dot.
    await expect(row.getByRole('img', { name: 'Online', exact: true })).toBeVisible();
    const menu = a.getByRole('menu', { name: `Chat options for ${bob.handle}` });

    const button = row.getByRole('button', { name: `Chat options for ${bob.handle}` });
    await expect(button).toBeVisible();
    await expect(button).toHaveAttribute('aria-expanded', 'false');
    await button.click();
    await expect(menu.getByRole('menuitem')).toHaveText(ROW_MENU);
    await expect(button).toHaveAttribute('aria-expanded', 'true');
    await expect(menu.getByRole('menuitem', { name: 'Pin' })).toBeFocused();
    await a.keyboard.press('Escape');
    await expect(menu).toHaveCount(0);
    await expect(button).toBeFocused();

    await row.getByRole('link').click({ button: 'right' });
    await expect(menu.getByRole('menuitem')).toHaveText(ROW_MENU);
    await expect(a).toHaveURL('/home');
    await a.getByRole('heading', { level: 1 }).click();
    await expect(menu).toHaveCount(0);

    await bob.context.close();
    await expect(row.getByRole('img', { name: 'Online', exact: true })).toHaveCount(0);
  });
});

test.describe('contacts', () => {
  test('lists other users with their name and an online or offline dot; search; No users found', async ({ people }) => {
    const tag = runTag();
    const alice = await people.person('alice', { username: `ct${tag}_alice` });
    const bob = await people.person('bob', { username: `ct${tag}_Bob` });
    const carol = await people.person('carol', { username: `ct${tag}_carol` });
    await bob.page.goto('/home');
    await expect(bob.page.getByText('No conversations yet')).toBeVisible();

    const a = alice.page;
    await a.goto('/contacts');
    await expect(a.getByRole('heading', { level: 1, name: 'Contacts' })).toBeVisible();
    const box = a.getByRole('searchbox', { name: 'Search by username' });
    await expect(box).toHaveAttribute('placeholder', 'Search by username...');
    const users = a.getByRole('list', { name: 'Users' }).getByRole('listitem');
    const contact = (p: Person) => users.filter({ hasText: p.handle });

    await box.fill(`CT${tag.toUpperCase()}`);
    await expect(users).toHaveCount(2); // not alice herself
    await expect(contact(bob)).toContainText('Bob Tester');
    await expect(contact(carol)).toContainText('Carol Tester');
    await expect(contact(bob).getByRole('img', { name: 'Online', exact: true })).toBeVisible();
    await expect(contact(carol).getByRole('img', { name: 'Offline', exact: true })).toBeVisible();
    await expect(contact(alice)).toHaveCount(0);

    // Presence follows live.
    await carol.page.goto('/home');
    await expect(contact(carol).getByRole('img', { name: 'Online', exact: true })).toBeVisible();
    await bob.context.close();
    await expect(contact(bob).getByRole('img', { name: 'Offline', exact: true })).toBeVisible();

    // A leading '@' and any case work.
    await box.fill(`@Ct${tag}_bOB`);
    await expect(users).toHaveCount(1);
    await expect(contact(bob)).toBeVisible();
    await box.fill(`${tag}_CAR`);
    await expect(users).toHaveCount(1);
    await expect(contact(carol)).toBeVisible();

    await box.fill(`ct${tag}_nobody`);
    await expect(a.getByText('No users found')).toBeVisible();
    await expect(users).toHaveCount(0);

    await box.fill(`ct${tag}_car`);
    await contact(carol).getByRole('link').click();
    await expect(a).toHaveURL(`/chat/${carol.id}`);
    await expect(a.getByRole('heading', { level: 1, name: carol.handle })).toBeVisible();
  });

  test('the floating button and Back go to /home', async ({ people }) => {
    const alice = await people.person('alice');
    await alice.page.goto('/contacts');
    await alice.page.getByRole('link', { name: 'Chats' }).click();
    await expect(alice.page).toHaveURL('/home');
    await alice.page.goto('/contacts');
    await alice.page.getByRole('button', { name: 'Back' }).click();
    await expect(alice.page).toHaveURL('/home');
  });
});

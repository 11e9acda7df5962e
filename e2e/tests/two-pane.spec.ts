/**
 * The desktop layout (issue 15): from 1024 px the chat list and the open conversation side by
 * side. Switching chats happens without a page load (a marker set on `window` survives);
 * /home and /chat/:userId stay real routes (a deep link, a reload and Back keep the
 * selection); contacts and settings open in the left pane while the open chat stays on the
 * right; /home closes it. Below 1024 px one screen at a time, as before. Screenshots of both
 * layouts, light and dark.
 */
import type { Page } from '@playwright/test';
import { bubble, chatRow, expect, openChat, type Person, send, test, tick } from './chat-helpers.ts';
import { shot } from './fixtures.ts';

function chatList(page: Page) {
  return page.getByRole('list', { name: 'Chats' });
}

function conversation(page: Page, handle: string) {
  return page.getByRole('region', { name: `Conversation with ${handle}` });
}

/** The peer's name in the conversation's header. */
function peerHeading(page: Page, handle: string) {
  return page.getByRole('heading', { level: 1, name: handle });
}

async function markPage(page: Page): Promise<void> {
  await page.evaluate(() => {
    (window as unknown as { parleyMark?: number }).parleyMark = 42;
  });
}

function pageMark(page: Page): Promise<number | undefined> {
  return page.evaluate(() => (window as unknown as { parleyMark?: number }).parleyMark);
}

/** `from` sends `text` to `to` through the app. */
async function message(from: Person, to: Person, text: string): Promise<void> {
  await openChat(from.page, to);
  await send(from.page, text);
  await expect(bubble(from.page, text)).toBeVisible();
}

test('two panes from 1024 px: switching chats without a page load; deep links, reload and Back keep the selection', async ({
  people,
}) => {
  const [alice, bob, carol] = await Promise.all([people.person('al'), people.person('bo'), people.person('ca')]);
  await message(bob, alice, 'Hello from Bob');
  await message(carol, alice, 'Hello from Carol');

  const page = alice.page;
  await page.goto('/home');
  await expect(chatRow(page, bob.handle)).toBeVisible();
  // Nothing open yet: the conversation pane says so, beside the list.
  const empty = page.getByRole('region', { name: 'Conversation' });
  await expect(empty.getByRole('heading', { name: 'Select a chat' })).toBeVisible();
  await expect(page.getByRole('main')).toContainText(bob.handle);

  await markPage(page);
  await chatRow(page, bob.handle).getByRole('link').click();
  await expect(page).toHaveURL(`/chat/${bob.id}`);
  await expect(peerHeading(page, bob.handle)).toBeVisible();
  await expect(bubble(page, 'Hello from Bob')).toBeVisible();
  // The list stays beside the conversation, now a named region; the conversation is the main part.
  await expect(page.getByRole('region', { name: 'Chats' }).getByRole('list', { name: 'Chats' })).toBeVisible();
  await expect(page.getByRole('main')).toHaveCount(1);
  await expect(page.getByRole('main').getByRole('textbox', { name: 'Message', exact: true })).toBeVisible();
  const open = chatRow(page, bob.handle).getByRole('link');
  await expect(open).toHaveAttribute('aria-current', 'page');

  await chatRow(page, carol.handle).getByRole('link').click();
  await expect(page).toHaveURL(`/chat/${carol.id}`);
  await expect(bubble(page, 'Hello from Carol')).toBeVisible();
  await expect(bubble(page, 'Hello from Bob')).toHaveCount(0);
  await expect(chatRow(page, carol.handle).getByRole('link')).toHaveAttribute('aria-current', 'page');
  await expect(open).not.toHaveAttribute('aria-current', 'page');
  expect(await pageMark(page), 'the switches happened without a page load').toBe(42);

  // Back returns to the previous chat, still in the same page.
  await page.goBack();
  await expect(page).toHaveURL(`/chat/${bob.id}`);
  await expect(bubble(page, 'Hello from Bob')).toBeVisible();
  expect(await pageMark(page)).toBe(42);

  // A reload (and so a deep link) shows both panes with the same chat open.
  await page.reload();
  await expect(bubble(page, 'Hello from Bob')).toBeVisible();
  await expect(chatList(page)).toBeVisible();
  await expect(chatRow(page, bob.handle).getByRole('link')).toHaveAttribute('aria-current', 'page');

  // A reply from the right pane shows in the left pane's row.
  await send(page, 'Hi Bob');
  await expect(chatRow(page, bob.handle)).toContainText('Hi Bob');
});

test('contacts and settings open in the left pane beside the open chat; /home closes it', async ({ people }) => {
  const [alice, bob] = await Promise.all([people.person('al'), people.person('bo')]);
  await message(bob, alice, 'Left pane check');
  const page = alice.page;
  await openChat(page, bob);
  await expect(chatList(page)).toBeVisible();
  await markPage(page);

  await page.getByRole('link', { name: 'Settings' }).click();
  await expect(page).toHaveURL('/settings');
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
  // Settings is the main part now; the conversation stays open beside it.
  await expect(page.getByRole('main')).toHaveCount(1);
  await expect(page.getByRole('main')).toContainText('Appearance');
  await expect(conversation(page, bob.handle)).toBeVisible();
  await expect(bubble(page, 'Left pane check')).toBeVisible();
  await expect(chatList(page)).toHaveCount(0);

  // About (open to visitors too) is one of Settings' screens here: in the left pane as well.
  await page.getByRole('link', { name: 'About' }).click();
  await expect(page).toHaveURL('/about');
  await expect(page.getByRole('main')).toContainText('Our Mission');
  await expect(page.getByRole('main')).toHaveCount(1);
  await expect(bubble(page, 'Left pane check')).toBeVisible();
  await page.goBack();
  await expect(page).toHaveURL('/settings');
  await expect(bubble(page, 'Left pane check')).toBeVisible();

  await page.getByRole('link', { name: /^Profile/ }).click();
  await expect(page).toHaveURL('/profile');
  await expect(bubble(page, 'Left pane check')).toBeVisible();

  await page.goto('/contacts');
  await expect(page.getByRole('heading', { level: 1, name: 'Contacts' })).toBeVisible();
  await page.getByRole('searchbox', { name: 'Search by username' }).fill(bob.user.username);
  await expect(page.getByRole('list', { name: 'Users' })).toContainText(bob.handle);

  // Back to the list: /home, which closes the conversation.
  await page.getByRole('link', { name: 'Chats' }).click();
  await expect(page).toHaveURL('/home');
  await expect(chatList(page)).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Select a chat' })).toBeVisible();
  await expect(bubble(page, 'Left pane check')).toHaveCount(0);
});

test('below 1024 px one screen at a time; the layout follows the window live', async ({ people }) => {
  const [alice, bob] = await Promise.all([people.person('al'), people.person('bo')]);
  await message(bob, alice, 'Narrow check');
  const page = alice.page;
  await page.setViewportSize({ width: 1000, height: 800 });
  await openChat(page, bob);
  await expect(chatList(page)).toHaveCount(0);
  await expect(bubble(page, 'Narrow check')).toBeVisible();

  await page.setViewportSize({ width: 1024, height: 800 });
  await expect(chatList(page)).toBeVisible();
  await expect(bubble(page, 'Narrow check')).toBeVisible();

  await page.setViewportSize({ width: 390, height: 844 });
  await expect(chatList(page)).toHaveCount(0);
  await page.goto('/home');
  await expect(chatList(page)).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Select a chat' })).toHaveCount(0);
});

test('screenshots: the two panes, light and dark', async ({ people }) => {
  const [alice, bob, carol] = await Promise.all([people.person('al'), people.person('bo'), people.person('ca')]);
  await message(bob, alice, 'Are we still on for lunch tomorrow? 🍜');
  await message(carol, alice, 'Sent you the slides');
  const page = alice.page;
  await openChat(page, bob);
  await send(page, 'Yes! 12:30 at the usual place');
  // Stored before the page reloads below (a reload while it is sealed and queued can lose it).
  const reply = bubble(page, 'Yes! 12:30 at the usual place');
  await expect(reply).toBeVisible();
  await expect(tick(reply, 'Pending')).toHaveCount(0);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto('/home');
    await expect(chatRow(page, carol.handle)).toBeVisible();
    await shot(page, `two-pane-home-${scheme}`);
    await openChat(page, bob);
    await expect(bubble(page, 'Yes! 12:30 at the usual place')).toBeVisible();
    await shot(page, `two-pane-chat-${scheme}`);
    await page.getByRole('link', { name: 'Settings' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
    await expect(bubble(page, 'Yes! 12:30 at the usual place')).toBeVisible();
    await shot(page, `two-pane-settings-${scheme}`);
  }
});

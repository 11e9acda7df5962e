/**
 * A conversation you can scan (issue 15), between two people in two browsers: day lines
 * ('Today', 'Yesterday', a weekday), one sender's messages grouped with the tail on the
 * last, the unread line the chat opens at (fixed while they are read), the "Jump to
 * latest message" button counting what arrives meanwhile, links (http and https only),
 * and what a screen reader gets: a <main>, a list of messages naming sender and time,
 * options buttons named after their message, and new messages read out.
 *
 * Older days: the messages are sent through the app, then backdated in the server's
 * database (a message's ciphertext does not depend on its time); the reader then loads
 * the conversation afresh from the server.
 */
import type { Locator, Page } from '@playwright/test';
import { E2E_DB_FILE } from '../env.ts';
import {
  bubble,
  CLOCK,
  chatRow,
  expect,
  openChat,
  openMessageMenu,
  optionsButton,
  send,
  shotSizes,
  test,
  tick,
  unreadBadge,
} from './chat-helpers.ts';
import { shotSchemes } from './fixtures.ts';
import { withDb } from './private-server.ts';

/** Noon (local time) `days` days ago. */
function noonDaysAgo(days: number): number {
  const d = new Date();
  d.setHours(12, 0, 0, 0);
  d.setDate(d.getDate() - days);
  return d.getTime();
}

/** Waits for the message to reach the server and returns its id. */
async function confirmedId(page: Page, text: string): Promise<string> {
  const b = bubble(page, text);
  await expect(b).toHaveCount(1);
  await expect(tick(b, 'Pending')).toHaveCount(0);
  const id = await b.getAttribute('data-message-id');
  expect(id).toBeTruthy();
  return id as string;
}

function backdate(id: string, timestamp: number): void {
  const r = withDb(E2E_DB_FILE, (db) =>
    db.prepare('UPDATE messages SET timestamp = ? WHERE id = ?').run(timestamp, id),
  );
  expect(r.changes).toBe(1);
}

/** The conversation's scroller, and its list of rows. */
function conversation(page: Page, peerHandle: string): { region: Locator; list: Locator } {
  const region = page.getByRole('region', { name: `Conversation with ${peerHandle}` });
  return { region, list: region.getByRole('list', { name: 'Messages' }) };
}

/** The row at a position (1-based) of the whole list, rendered or not (it is virtualised). */
function rowAt(list: Locator, position: number): Locator {
  return list.locator(`li[aria-posinset="${position}"]`);
}

const UNREAD = 24;

test('day lines, groups, the unread line the chat opens at, and jumping to the latest with a count', async ({
  people,
}) => {
  test.setTimeout(240_000);
  const [alice, bob] = await Promise.all([people.person('alice'), people.person('bob')]);
  const a = alice.page;
  const b = bob.page;

  // Three days ago alice said hello; bob read it and replied yesterday.
  await openChat(a, bob);
  await send(a, 'Hello from a few days ago');
  const helloId = await confirmedId(a, 'Hello from a few days ago');
  await openChat(b, alice);
  await expect(bubble(b, 'Hello from a few days ago')).toBeVisible();
  await send(b, 'Replying yesterday');
  const replyId = await confirmedId(b, 'Replying yesterday');
  await b.goto('/home');
  backdate(helloId, noonDaysAgo(3));
  backdate(replyId, noonDaysAgo(1));

  // Today, while bob is away, alice writes a screenful and more.
  for (let i = 1; i <= UNREAD; i++) await send(a, `Unread ${i}`);
  await confirmedId(a, `Unread ${UNREAD}`);
  await expect(unreadBadge(chatRow(b, alice.handle))).toHaveText(`${UNREAD} unread`);

  await openChat(b, alice);
  const { region, list } = conversation(b, alice.handle);
  // It opens at the unread line, not at the newest message.
  const unreadLine = list.getByText(`${UNREAD} unread messages`, { exact: true });
  await expect(unreadLine).toBeInViewport();
  await expect(bubble(b, `Unread ${UNREAD}`)).not.toBeInViewport();
  const jump = b.getByRole('button', { name: 'Jump to latest message', exact: true });
  await expect(jump).toBeVisible();
  await expect(jump).not.toHaveAccessibleDescription(/new message/);

  // Alice writes two more: the button counts them; the unread line stays where it was.
  await send(a, 'New one');
  await send(a, 'New two');
  await expect(jump).toHaveAccessibleDescription('2 new messages');
  await expect(jump).toHaveText('2');
  await expect(unreadLine).toBeInViewport();
  await expect(bubble(b, 'New two')).not.toBeInViewport();

  // Every row in order, counted for screen readers: day lines, the unread line, messages
  // naming their sender and time.
  const weekday = await b.evaluate(
    (ts) => new Date(ts).toLocaleDateString('en-US', { weekday: 'long' }),
    noonDaysAgo(3),
  );
  await region.evaluate((el) => {
    el.scrollTop = 0;
  });
  const rows = 6 + UNREAD + 2;
  await expect(rowAt(list, 1)).toHaveText(weekday);
  await expect(rowAt(list, 1)).toHaveAttribute('aria-setsize', String(rows));
  await expect(rowAt(list, 2)).toContainText(`${alice.handle}, 12:00 PM: Hello from a few days ago`);
  await expect(rowAt(list, 3)).toHaveText('Yesterday');
  await expect(rowAt(list, 4)).toContainText('You, 12:00 PM: Replying yesterday');
  await expect(rowAt(list, 5)).toHaveText('Today');
  await expect(rowAt(list, 6)).toHaveText(`${UNREAD} unread messages`);
  await expect(rowAt(list, 7)).toContainText('Unread 1');
  await expect(optionsButton(bubble(b, 'Unread 1'))).toHaveAccessibleName(
    new RegExp(`^Options for message from ${alice.handle}, \\d{1,2}:\\d{2}\\s[AP]M$`),
  );
  await expect(optionsButton(bubble(b, 'Replying yesterday'))).toHaveAccessibleName(
    /^Options for message from you, 12:00\sPM$/,
  );

  // Alice's messages of today are one group: close together, the tail on the last only.
  const [one, two] = [await bubble(b, 'Unread 1').boundingBox(), await bubble(b, 'Unread 2').boundingBox()];
  expect(one && two && two.y - (one.y + one.height)).toBeLessThanOrEqual(4);
  await expect(bubble(b, 'Unread 1')).toHaveCSS('border-bottom-left-radius', '16px');
  // The lone messages of other days have their tails.
  await expect(bubble(b, 'Hello from a few days ago')).toHaveCSS('border-bottom-left-radius', '4px');
  await expect(bubble(b, 'Replying yesterday')).toHaveCSS('border-bottom-right-radius', '4px');

  await shotSizes(b, 'conversation-scan', async () => {
    await region.evaluate((el) => {
      el.scrollTop = 0;
    });
    await expect(rowAt(list, 1)).toBeInViewport();
    await expect(jump).toBeVisible();
  });

  // The jump: to the newest message, the count cleared, the button gone.
  await jump.click();
  await expect(bubble(b, 'New two')).toBeInViewport();
  await expect(jump).toHaveCount(0);
  await expect(region).toBeFocused();
  await expect(bubble(b, 'New two')).toHaveCSS('border-bottom-left-radius', '4px');
  await expect(bubble(b, 'New one')).toHaveCSS('border-bottom-left-radius', '16px');
  // At the bottom, a new message scrolls into view and nothing is counted.
  await send(a, 'Seen at once');
  await expect(bubble(b, 'Seen at once')).toBeInViewport();
  await expect(jump).toHaveCount(0);
});

test('new messages are read out, links are http(s) only, and the page has its landmarks', async ({ people }) => {
  const [alice, bob] = await Promise.all([people.person('alice'), people.person('bob')]);
  const a = alice.page;
  const b = bob.page;
  await openChat(a, bob);
  await openChat(b, alice);
  await expect(b.getByRole('main')).toContainText(`No messages yet. Say hi to ${alice.handle}!`);
  const live = b.getByRole('log', { name: 'New messages', exact: true });
  await expect(live).toHaveAttribute('aria-live', 'polite');
  await expect(live).toHaveClass(/sr-only/);
  await expect(live).toHaveText('');

  // The peer's messages are read out, opened; the reader's own are not.
  await send(a, 'Are you there?');
  await expect(live).toContainText(`${alice.handle}: Are you there?`);
  await send(b, 'My own words');
  await expect(bubble(a, 'My own words')).toBeVisible();

  const safe = 'The docs: https://example.com/docs?page=2. Enjoy';
  const evil = 'javascript:alert(document.cookie)';
  await send(a, safe);
  await send(a, evil);
  await expect(live).toContainText(`${alice.handle}: ${evil}`);
  await expect(live).toContainText(`${alice.handle}: ${safe}`);
  await expect(live).not.toContainText('My own words');
  // What the log holds is current: a message deleted since leaves it.
  await (await openMessageMenu(a, bubble(a, 'Are you there?'))).getByRole('menuitem', { name: 'Delete' }).click();
  await expect(bubble(b, 'This message deleted')).toBeVisible();
  await expect(live).not.toContainText('Are you there?');
  await expect(live).toContainText(`${alice.handle}: ${safe}`);

  for (const page of [a, b]) {
    const link = bubble(page, safe).getByRole('link');
    await expect(link).toHaveCount(1);
    await expect(link).toHaveText('https://example.com/docs?page=2');
    await expect(link).toHaveAttribute('href', 'https://example.com/docs?page=2');
    await expect(link).toHaveAttribute('target', '_blank');
    await expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    await expect(bubble(page, evil)).toBeVisible();
    await expect(bubble(page, evil).getByRole('link')).toHaveCount(0);
    await expect(bubble(page, evil).locator('a')).toHaveCount(0);
  }
  await expect(optionsButton(bubble(b, 'My own words'))).toHaveAccessibleName(
    new RegExp(`^Options for message from you, ${CLOCK.source.slice(1, -1)}$`),
  );
  await shotSizes(b, 'conversation-links');

  // One to three emoji alone are shown large (fewer, larger); with words, as text.
  for (const t of ['🎉', '👍🏽🔥', 'Nice one 😀']) await send(a, t);
  const size = (t: string) => bubble(b, t).locator('p');
  await expect(size('🎉')).toHaveCSS('font-size', '48px');
  await expect(size('👍🏽🔥')).toHaveCSS('font-size', '36px');
  await expect(size('Nice one 😀')).toHaveCSS('font-size', '15px');
  await shotSchemes(b, 'conversation-emoji');

  // History loaded when the chat opens is not read out.
  await b.reload();
  await expect(bubble(b, evil)).toBeVisible();
  await expect(b.getByRole('main').getByRole('region', { name: `Conversation with ${alice.handle}` })).toBeVisible();
  await expect(live).toHaveText('');

  // On the chat list, with no chat open, a message is read out by whom it is from.
  await b.goto('/home');
  const listLog = b.getByRole('log', { name: 'Activity in your chats' });
  await expect(listLog).toHaveAttribute('aria-live', 'polite');
  await expect(listLog).toHaveText('');
  await send(a, 'Ping while you are on the list');
  await expect(listLog).toHaveText(`New message from ${alice.handle}`);
});

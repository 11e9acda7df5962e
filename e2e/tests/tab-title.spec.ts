/**
 * The tab's title counts unread messages ("(2) Parley"), live, on any signed-in screen;
 * reading the chat clears it; signing out leaves "Parley".
 */
import { bubbles, chatRow, expect, openChat, send, test, unreadBadge } from './chat-helpers.ts';

test('the title counts unread messages live and clears when the chat is read', async ({ people }) => {
  const alice = await people.person('alice');
  const bob = await people.person('bob');
  const b = bob.page;
  await b.goto('/home');
  await expect(b).toHaveTitle('Parley');

  await openChat(alice.page, bob);
  await send(alice.page, 'One');
  await send(alice.page, 'Two');
  await expect(unreadBadge(chatRow(b, alice.handle))).toHaveText('2 unread');
  await expect(b).toHaveTitle('(2) Parley');

  // Another screen keeps counting.
  await b.goto('/settings');
  await send(alice.page, 'Three');
  await expect(b).toHaveTitle('(3) Parley');

  await openChat(b, alice);
  await expect(bubbles(b)).toHaveCount(3);
  await expect(b).toHaveTitle('Parley');
});

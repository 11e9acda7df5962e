/**
 * Where focus goes for a keyboard user: the page's first Tab stop is "Skip to main
 * content", which lands in the screen's main part; Back lands on the link one came from
 * (the chat's row, Settings' Profile row), not on the page heading; closing the search that
 * Ctrl+K opened gives focus back to where Ctrl+K was pressed.
 */
import { chatRow, expect, openChat, test } from './chat-helpers.ts';
import { expectFocus, expectFocused } from './focus-helpers.ts';
import { nodePeer } from './node-peers.ts';

test('skip link, Back to the row one came from, and focus back after the Ctrl+K search', async ({ people }) => {
  const alice = await people.person('alice');
  const bob = await nodePeer('bob');
  try {
    await bob.send(alice, 'Hi Alice');
    const a = alice.page;
    await a.goto('/home');
    await expect(chatRow(a, bob.handle)).toBeVisible();

    // The first Tab stop: shown when focused, it moves focus to <main>.
    await a.keyboard.press('Tab');
    const skip = a.getByRole('button', { name: 'Skip to main content' });
    await expectFocused(skip);
    await expect(skip).toBeInViewport();
    await a.keyboard.press('Enter');
    await expectFocus(a, { tag: 'main' });

    // Back from a chat: on its row of the list.
    await chatRow(a, bob.handle).getByRole('link').press('Enter');
    const composer = a.getByRole('textbox', { name: 'Message', exact: true });
    await expectFocused(composer);
    // Ctrl+K from the composer, then Escape: the composer again.
    await a.keyboard.press('Control+k');
    await expectFocused(a.getByRole('searchbox', { name: 'Search by username' }));
    await a.keyboard.press('Escape');
    await expectFocused(composer);

    await a.setViewportSize({ width: 390, height: 844 });
    await openChat(a, bob);
    await a.getByRole('button', { name: 'Back' }).press('Enter');
    await expect(a).toHaveURL('/home');
    await expectFocus(a, { tag: 'a', href: `/chat/${bob.id}` });

    // Back from Profile: on Settings' Profile row.
    await a.goto('/settings');
    await a.getByRole('link', { name: 'Profile' }).press('Enter');
    await expect(a.getByRole('heading', { level: 1, name: 'Profile' })).toBeVisible();
    await a.getByRole('button', { name: 'Back' }).press('Enter');
    await expect(a).toHaveURL('/settings');
    await expectFocus(a, { tag: 'a', href: '/profile' });
  } finally {
    await bob.close();
  }
});

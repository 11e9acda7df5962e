/**
 * Message search, in a browser beside a Node peer who wrote a long history: the list's
 * search shows "Messages" under the chats once the background has read the older pages,
 * and opens the chat at the message; "Search in chat" finds it from the chat's header and
 * jumps to it. axe scans and pictures of both at 390 and 1280, light and dark.
 */
import { runAxe } from './axe.ts';
import { bubble, expect, openChat, test } from './chat-helpers.ts';
import { shot } from './fixtures.ts';
import { nodePeer } from './node-peers.ts';

test('find an old message from the chat list and from the chat, and jump to it', async ({ people }) => {
  const alice = await people.person('alice');
  const bob = await nodePeer('bob');
  try {
    await bob.send(alice, 'Meet me at the harbour at dawn');
    for (let i = 0; i < 60; i++) await bob.send(alice, `later note ${i}`);
    const a = alice.page;
    await a.goto('/home');
    await a.getByRole('button', { name: 'Search', exact: true }).click();
    await a.getByRole('searchbox', { name: 'Search by username' }).fill('harbour');
    const found = a.getByRole('list', { name: 'Messages found' });
    // The first page the list's preview opened is newer: the hit comes from the background.
    await expect(found.getByRole('link')).toHaveCount(1, { timeout: 15_000 });
    await expect(found).toContainText('Meet me at the harbour at dawn');
    await expect(found.locator('mark')).toHaveText('harbour');

    const findings: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      for (const width of [1280, 390]) {
        await a.emulateMedia({ colorScheme: scheme });
        await a.setViewportSize({ width, height: width === 390 ? 844 : 800 });
        await expect(found).toBeVisible();
        const { violations } = await runAxe(a);
        findings.push(
          ...violations.flatMap((v) => v.nodes.map((n) => `list ${scheme} @${width}: ${v.id} at ${n.target}`)),
        );
        await shot(a, `search-messages-${scheme}`);
      }
    }
    await a.emulateMedia({ colorScheme: 'light' });
    await a.setViewportSize({ width: 1280, height: 800 });

    await found.getByRole('link').click();
    await expect(a).toHaveURL(`/chat/${bob.id}`);
    const target = bubble(a, 'Meet me at the harbour at dawn');
    await expect(target).toBeInViewport();
    await expect(target).toHaveClass(/ring-4/);

    // From the chat's header: found, counted, and jumped to.
    await openChat(a, bob);
    await a.getByRole('button', { name: 'Search in chat' }).click();
    const field = a.getByRole('searchbox', { name: 'Search in chat' });
    await expect(field).toBeFocused();
    await field.fill('DAWN');
    await expect(a.getByRole('status').filter({ hasText: '1 message' })).toBeVisible();
    for (const scheme of ['light', 'dark'] as const) {
      for (const width of [1280, 390]) {
        await a.emulateMedia({ colorScheme: scheme });
        await a.setViewportSize({ width, height: width === 390 ? 844 : 800 });
        const { violations } = await runAxe(a);
        findings.push(
          ...violations.flatMap((v) => v.nodes.map((n) => `chat ${scheme} @${width}: ${v.id} at ${n.target}`)),
        );
        await shot(a, `search-in-chat-${scheme}`);
      }
    }
    await a.emulateMedia({ colorScheme: 'light' });
    await a.getByRole('list', { name: 'Messages found' }).getByRole('button').click();
    await expect(target).toBeInViewport();
    await expect(target).toHaveClass(/ring-4/);
    await a.keyboard.press('Escape');
    await expect(field).toHaveCount(0);
    await expect(a.getByRole('button', { name: 'Search in chat' })).toBeFocused();
    expect(findings).toEqual([]);
  } finally {
    await bob.close();
  }
});

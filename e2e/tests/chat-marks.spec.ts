/**
 * A user's own marks on chats, from the chat list's row menu: Pin (at most three, on top,
 * the latest pinned first), Mute (no tab-title count, a quiet badge, and still quiet when
 * another message comes), Mark as unread (a dot until the chat is opened). Each shows at
 * once in the user's other tab. The people who write are Node peers (node-peers.ts): what
 * is tested is what the user sees.
 */
import type { Page } from '@playwright/test';
import { SHOOTING } from '../env.ts';
import { openHome, rowMenu } from './archive-lock-helpers.ts';
import { expectToast } from './auth-helpers.ts';
import { expectAccessible } from './axe.ts';
import { chatRow, chatRows, expect, openChat, type Person, test, unreadBadge } from './chat-helpers.ts';
import { shot, shotSchemes } from './fixtures.ts';
import { type NodePeer, nodePeer } from './node-peers.ts';

/** The handles of the list's rows, top to bottom. */
async function order(page: Page, handles: string[]): Promise<string[]> {
  const rows = await chatRows(page).allInnerTexts();
  return rows.map((t) => handles.find((h) => t.includes(h)) ?? '?');
}

async function alicesWorld(people: { person(prefix: string): Promise<Person> }, writers: number) {
  const alice = await people.person('alice');
  const peers = await Promise.all(Array.from({ length: writers }, (_, i) => nodePeer(`w${i}`)));
  // Oldest first: the last one is on top of the list.
  for (const p of peers) await p.send(alice, `hello from ${p.handle}`);
  return { alice, peers };
}

test.describe('pinned, muted and unread chats', () => {
  let peers: NodePeer[] = [];
  test.afterEach(async () => {
    await Promise.all(peers.map((p) => p.close()));
    peers = [];
  });

  test('pin, mute and mark unread from the row menu, seen at once in the other tab; a fourth pin is refused', async ({
    people,
  }) => {
    const world = await alicesWorld(people, 4);
    peers = world.peers;
    const [w0, w1, w2, w3] = peers as [NodePeer, NodePeer, NodePeer, NodePeer];
    const handles = peers.map((p) => p.handle);
    const a = world.alice.page;
    await openHome(a);
    const other = await world.alice.context.newPage();
    await openHome(other);
    await expect.poll(() => order(a, handles)).toEqual([w3.handle, w2.handle, w1.handle, w0.handle]);
    await expect(a).toHaveTitle('(4) Parley');

    // Pinned: on top, the latest pinned first, in both tabs.
    await rowMenu(a, chatRow(a, w0.handle), w0.handle, 'Pin', 'button');
    await expectToast(a, 'Chat Pinned');
    await rowMenu(a, chatRow(a, w1.handle), w1.handle, 'Pin', 'button');
    for (const page of [a, other]) {
      await expect.poll(() => order(page, handles)).toEqual([w1.handle, w0.handle, w3.handle, w2.handle]);
      await expect(chatRow(page, w0.handle).getByRole('img', { name: 'Pinned' })).toBeVisible();
    }
    // A new message does not move a chat above the pinned ones.
    await w2.send(world.alice, 'news');
    await expect.poll(() => order(other, handles)).toEqual([w1.handle, w0.handle, w2.handle, w3.handle]);
    await rowMenu(other, chatRow(other, w2.handle), w2.handle, 'Pin', 'button');
    await rowMenu(a, chatRow(a, w3.handle), w3.handle, 'Pin', 'button');
    await expectToast(a, 'You can pin up to 3 chats', undefined, 'error');
    await expect(chatRow(a, w3.handle).getByRole('img', { name: 'Pinned' })).toHaveCount(0);
    await rowMenu(a, chatRow(a, w2.handle), w2.handle, 'Unpin', 'button');
    await expect(chatRow(other, w2.handle).getByRole('img', { name: 'Pinned' })).toHaveCount(0);

    // Muted: out of the title's count, a quiet badge, and still so when another message comes.
    await expect(a).toHaveTitle('(5) Parley');
    await rowMenu(a, chatRow(a, w3.handle), w3.handle, 'Mute always', 'button');
    await expectToast(a, 'Chat Muted');
    for (const page of [a, other]) {
      await expect(chatRow(page, w3.handle).getByRole('img', { name: 'Muted' })).toBeVisible();
      await expect(page).toHaveTitle('(4) Parley');
    }
    await w3.send(world.alice, 'are you there?');
    await expect(unreadBadge(chatRow(other, w3.handle))).toHaveText('2 unread');
    await expect(other).toHaveTitle('(4) Parley');

    // Read, then marked unread: a dot until the chat is opened again.
    await openChat(a, w0);
    // Read (the other tab's row says so), then back to the list.
    await expect(unreadBadge(chatRow(other, w0.handle))).toHaveCount(0);
    await openHome(a);
    await rowMenu(a, chatRow(a, w0.handle), w0.handle, 'Mark as unread', 'button');
    await expectToast(a, 'Marked as Unread');
    for (const page of [a, other]) {
      await expect(chatRow(page, w0.handle).getByText('Marked unread', { exact: true })).toBeAttached();
    }
    await shotSchemes(a, 'chat-list-marks');
    // The menu closes when the window is resized: opened for each picture.
    if (SHOOTING) {
      for (const scheme of ['light', 'dark'] as const) {
        for (const width of [1280, 390]) {
          await a.emulateMedia({ colorScheme: scheme });
          await a.setViewportSize({ width, height: width === 390 ? 844 : 800 });
          await openHome(a);
          await chatRow(a, w2.handle)
            .getByRole('button', { name: `Chat options for ${w2.handle}` })
            .click();
          await expect(a.getByRole('menuitem', { name: 'Mute for 1 week' })).toBeVisible();
          await shot(a, `chat-row-menu-marks-${scheme}`);
        }
      }
      await a.emulateMedia({ colorScheme: 'light' });
      await a.setViewportSize({ width: 1280, height: 800 });
    }
    await expectAccessible(a, [
      {
        name: '/home pinned, muted, marked unread; its menu',
        async open(page) {
          await openHome(page);
          await expect(chatRow(page, w0.handle).getByRole('img', { name: 'Pinned' })).toBeVisible();
          await chatRow(page, w3.handle)
            .getByRole('button', { name: `Chat options for ${w3.handle}` })
            .click();
          await expect(page.getByRole('menuitem', { name: 'Unmute' })).toBeVisible();
        },
      },
    ]);
    await openHome(a);
    await openChat(a, w0);
    await expect(chatRow(other, w0.handle).getByText('Marked unread', { exact: true })).toHaveCount(0);
  });

  test('on a phone: the row menu pins and mutes, and Unmute and Mark as read undo', async ({ people }) => {
    const world = await alicesWorld(people, 2);
    peers = world.peers;
    const [w0, w1] = peers as [NodePeer, NodePeer];
    const a = world.alice.page;
    await a.setViewportSize({ width: 390, height: 844 });
    await openHome(a);
    await rowMenu(a, chatRow(a, w0.handle), w0.handle, 'Pin', 'button');
    await expect.poll(() => order(a, [w0.handle, w1.handle])).toEqual([w0.handle, w1.handle]);
    await rowMenu(a, chatRow(a, w1.handle), w1.handle, 'Mute for 8 hours', 'button');
    await expectToast(a, 'Chat Muted for 8 Hours');
    await expect(chatRow(a, w1.handle).getByRole('img', { name: 'Muted' })).toBeVisible();
    await rowMenu(a, chatRow(a, w1.handle), w1.handle, 'Unmute', 'button');
    await expect(chatRow(a, w1.handle).getByRole('img', { name: 'Muted' })).toHaveCount(0);
    await rowMenu(a, chatRow(a, w1.handle), w1.handle, 'Mark as read', 'button');
    await expect(unreadBadge(chatRow(a, w1.handle))).toHaveCount(0);
    // Read means read: the writer's tick turns Read.
    await expect
      .poll(async () => (await w1.ws.request('history', { peerId: world.alice.id })).messages[0]?.status)
      .toBe('read');
  });
});

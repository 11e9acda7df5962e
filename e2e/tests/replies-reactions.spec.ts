/**
 * Replies, reactions and forwards, in a browser beside Node peers (node-peers.ts) who
 * write, react and read sealed as a browser would: what the user sees of theirs, and what
 * they get of the user's, live. The reply bar, the quote (following an edit and a
 * deletion, jumping to an original in older pages), the quick reactions and the chips,
 * the forward chooser; axe scans and pictures of each new state at 390 and 1280, light
 * and dark.
 */
import { chatIdOf, type Reaction } from '@app/protocol';
import type { Page } from '@playwright/test';
import { runAxe } from './axe.ts';
import { bubble, expect, messageMenu, openChat, openMessageMenu, test } from './chat-helpers.ts';
import { shot, shotSchemes } from './fixtures.ts';
import { type NodePeer, nodePeer } from './node-peers.ts';

/** Two frames: a resize's events have been dispatched (a window's resize fires before its next frame). */
function framesLater(page: Page): Promise<void> {
  return page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
}

/** axe findings inside `selector` and pictures of the state, light and dark, 1280 and 390 wide. */
async function scanAndShoot(page: Page, name: string, open: () => Promise<void>, selector?: string): Promise<string[]> {
  const findings: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    for (const width of [1280, 390]) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      await framesLater(page);
      await open();
      const { violations } = await runAxe(page, undefined, selector);
      findings.push(
        ...violations.flatMap((v) => v.nodes.map((n) => `${name} ${scheme} @${width}: ${v.id} at ${n.target}`)),
      );
      await shot(page, `${name}-${scheme}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });
  await framesLater(page);
  return findings;
}

/** The reactions `peer` holds of message `msgId` from its own socket's history, opened. */
async function reactionsSeenBy(peer: NodePeer, other: { id: string }, msgId: string): Promise<string[]> {
  const page = await peer.ws.request('history', { peerId: other.id });
  const mine = (page.reactions ?? []).filter((r: Reaction) => r.msgId === msgId);
  return Promise.all(mine.map((r) => peer.ws.sealerOf().openReaction({ ...r, ct: r.ct as string })));
}

test.describe('replies, reactions and forwards', () => {
  let peers: NodePeer[] = [];
  test.afterEach(async () => {
    await Promise.all(peers.map((p) => p.close()));
    peers = [];
  });

  test('reply with the quote following edit and deletion, react and take back, forward to another chat; the peers see it live', async ({
    people,
  }) => {
    const alice = await people.person('alice');
    const [bob, carol] = [await nodePeer('bob'), await nodePeer('carol')];
    peers = [bob, carol];
    const carols = await carol.ws.sendMessage(alice.id, 'Hi Alice, Carol here');
    const question = await bob.ws.sendMessage(alice.id, 'Are we still on for Friday?\nBring the maps');
    const a = alice.page;
    await openChat(a, bob);
    const findings: string[] = [];

    // Reply from the hover button: the bar over the composer, then the quote in the bubble.
    const original = bubble(a, 'Are we still on for Friday?\nBring the maps');
    await original.hover();
    await original
      .locator('..')
      .getByRole('button', { name: /^Reply to message from @/ })
      .click();
    const composer = a.getByRole('textbox', { name: 'Message', exact: true });
    await expect(a.getByText(`Replying to ${bob.handle}`)).toBeVisible();
    await expect(composer).toBeFocused();
    findings.push(
      ...(await scanAndShoot(a, 'reply-composer', async () => {
        await expect(a.getByRole('button', { name: 'Cancel reply' })).toBeVisible();
      })),
    );
    await composer.fill('Yes, 7 pm');
    await composer.press('Enter');
    await expect(a.getByRole('button', { name: 'Cancel reply' })).toHaveCount(0);
    const reply = bubble(a, 'Yes, 7 pm');
    const quote = reply.getByRole('button', { name: /Go to the original message/ });
    await expect(quote).toContainText(bob.handle);
    await expect(quote).toContainText('Are we still on for Friday?');
    // Bob's socket opens the reply: the reference is inside the seal.
    await expect
      .poll(async () => {
        const page = await bob.ws.request('history', { peerId: alice.id });
        const m = page.messages.find((x) => x.senderId === alice.id);
        return m ? (await bob.ws.sealerOf().openContent({ ...m, ct: m.ct as string })).reply?.msgId : null;
      })
      .toBe(question.id);

    // Bob reacts to the reply: a chip under it, live.
    const [replyMsg] = (await bob.ws.request('history', { peerId: alice.id })).messages.filter(
      (m) => m.senderId === alice.id,
    );
    const chatId = chatIdOf(alice.id, bob.id);
    await bob.ws.request('react', {
      chatId,
      msgId: replyMsg?.id,
      ct: await bob.ws.sealerOf().sealReaction(chatId, replyMsg?.id as string, '👍'),
    });
    await expect(reply.locator('xpath=../..').getByRole('button', { name: `👍 1: ${bob.handle}` })).toBeVisible();

    // Alice reacts to Bob's question from the quick row; Bob opens ❤️. The chip takes it back.
    await original.hover();
    await original
      .locator('..')
      .getByRole('button', { name: /^React to message from @/ })
      .click();
    const picker = a.getByRole('dialog', { name: 'React to message' });
    await expect(picker.getByRole('button', { name: 'React with 👍' })).toBeFocused();
    // A resize closes the picker a moment later: opened until it stays.
    const openPicker = () =>
      expect(async () => {
        if (!(await picker.isVisible())) {
          await original.hover();
          await original
            .locator('..')
            .getByRole('button', { name: /^React to message from @/ })
            .click();
        }
        await expect(picker).toBeVisible({ timeout: 500 });
      }).toPass();
    findings.push(
      ...(await scanAndShoot(a, 'reaction-picker', openPicker, '[role="dialog"][aria-label="React to message"]')),
    );
    // The last resize closed the picker (the message moved): open it again.
    await openPicker();
    await picker.getByRole('button', { name: 'React with ❤️' }).click();
    await expect(picker).toHaveCount(0);
    const heart = original.locator('xpath=../..').getByRole('button', { name: '❤️ 1: You' });
    await expect(heart).toHaveAttribute('aria-pressed', 'true');
    await expect.poll(() => reactionsSeenBy(bob, alice, question.id)).toEqual(['❤️']);
    findings.push(
      ...(await scanAndShoot(a, 'reaction-chips', async () => {
        await expect(heart).toBeVisible();
      })),
    );
    await heart.click();
    await expect(heart).toHaveCount(0);
    await expect.poll(() => reactionsSeenBy(bob, alice, question.id)).toEqual([]);

    // Bob edits his question: the quote follows; he deletes it: the quote says so.
    await bob.ws.editMessage(chatId, question.id, 'Are we still on for Saturday?');
    await expect(quote).toContainText('Are we still on for Saturday?');
    await bob.ws.deleteMessage(chatId, question.id);
    await expect(quote).toContainText('This message deleted');

    // A quote of another chat's message, with words Alice never wrote: looked up in this
    // chat only, it is not found, and the sender's excerpt is not shown as hers.
    await bob.ws.sendMessage(alice.id, {
      text: 'As you said',
      reply: { msgId: carols.id, senderId: alice.id, excerpt: 'I owe Bob $100' },
    });
    const forged = bubble(a, 'As you said').getByRole('button', { name: /Go to the original message/ });
    await expect(forged).toContainText('Original message not found');
    await expect(forged).not.toContainText('I owe Bob');

    // Forward Alice's reply to Carol, from the menu's chooser.
    await openMessageMenu(a, reply);
    await messageMenu(a).getByRole('menuitem', { name: 'Forward' }).click();
    const chooser = a.getByRole('dialog', { name: 'Forward message' });
    await chooser.getByRole('searchbox', { name: 'Search chats' }).fill(carol.user.username.slice(0, 8));
    await chooser.getByRole('checkbox', { name: carol.handle }).click();
    findings.push(
      ...(await scanAndShoot(
        a,
        'forward-dialog',
        async () => {
          await expect(chooser.getByRole('button', { name: 'Forward (1)' })).toBeVisible();
        },
        '[role="dialog"]',
      )),
    );
    await chooser.getByRole('button', { name: 'Forward (1)' }).click();
    await expect(chooser).toHaveCount(0);
    await expect
      .poll(async () => {
        const page = await carol.ws.request('history', { peerId: alice.id });
        const m = page.messages.find((x) => x.senderId === alice.id);
        if (!m) return null;
        const c = await carol.ws.sealerOf().openContent({ ...m, ct: m.ct as string });
        return { text: c.text, forwarded: c.forwarded, reply: c.reply };
      })
      .toEqual({ text: 'Yes, 7 pm', forwarded: true, reply: undefined });
    await openChat(a, carol);
    await expect(bubble(a, 'Yes, 7 pm')).toContainText('Forwarded');
    expect(findings).toEqual([]);
  });

  test('on a phone: a quote whose original is pages back loads the page around it, and the newest comes back at once', async ({
    people,
  }) => {
    const alice = await people.person('alice');
    await alice.page.setViewportSize({ width: 390, height: 844 });
    const bob = await nodePeer('bob');
    peers = [bob];
    const first = await bob.ws.sendMessage(alice.id, 'The very first message');
    for (let i = 0; i < 130; i++) {
      // Past the burst of 100 writes, at the sustained 20 a second.
      if (i > 90) await new Promise((r) => setTimeout(r, 55));
      await bob.ws.sendMessage(alice.id, `filler ${i}`);
    }
    await bob.ws.sendMessage(alice.id, {
      text: 'Remember this?',
      reply: { msgId: first.id, senderId: bob.id, excerpt: 'The very first message' },
    });
    const a = alice.page;
    // The history pages the browser asks for, from a reload on.
    const asked: Record<string, unknown>[] = [];
    a.on('websocket', (ws) => {
      ws.on('framesent', ({ payload }) => {
        const f = JSON.parse(String(payload));
        if (f.t === 'history') asked.push(f);
      });
    });
    await a.reload();
    await openChat(a, bob);
    // It opens at the unread line, far up: down to the newest first.
    await a.getByRole('button', { name: 'Jump to latest message' }).click();
    const quote = bubble(a, 'Remember this?').getByRole('button', { name: /Go to the original message/ });
    await expect(quote).toContainText('The very first message');
    await expect(quote).toBeInViewport();
    const before = asked.length;
    await quote.click();
    const target = bubble(a, 'The very first message');
    await expect(target).toBeInViewport();
    await expect(target).toHaveClass(/ring-4/);
    // Straight to the page around the original: not the two pages between. (A page the list
    // loaded meanwhile for the window it was leaving may follow: it is dropped.)
    expect(asked.slice(before)[0]).toMatchObject({ around: first.id });
    await shotSchemes(a, 'reply-jump');
    // The window is far from the newest: scrolling down pages towards it...
    const scroller = a.locator('[data-history-scroller]');
    await expect
      .poll(async () => {
        await scroller.evaluate((el) => el.scrollBy(0, 1500));
        return asked.filter((f) => f.after !== undefined).length;
      })
      .toBeGreaterThan(0);
    // ...and the bottom button brings the newest back at once.
    await a.getByRole('button', { name: 'Jump to latest message' }).click();
    await expect(bubble(a, 'Remember this?')).toBeInViewport();
    await expect(a.getByRole('button', { name: 'Jump to latest message' })).toHaveCount(0);
  });
});

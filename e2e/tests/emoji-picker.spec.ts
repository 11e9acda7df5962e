/**
 * The composer's emoji picker: loaded from Parley's own origin when first opened (no CDN:
 * the CSP guard would fail the test), searched, an emoji put in at the cursor, Escape back
 * to the composer, the pick first in "Recently used" next time; the peer sees the message
 * live, shown large. An axe scan and pictures of the open picker at 390 and 1280, light and
 * dark.
 */
import { runAxe } from './axe.ts';
import { bubbles, expect, openChat, test } from './chat-helpers.ts';
import { shot } from './fixtures.ts';
import { expectFocused } from './focus-helpers.ts';
import { nodePeer } from './node-peers.ts';

test('pick an emoji by search, at the cursor; recently used next time; the peer gets it live', async ({ people }) => {
  const alice = await people.person('alice');
  const bob = await nodePeer('bob');
  try {
    await bob.send(alice, 'Send me something fun');
    const a = alice.page;
    const data: string[] = [];
    a.on('request', (r) => {
      if (r.url().includes('emojibase')) data.push(new URL(r.url()).origin);
    });
    await openChat(a, bob);
    const composer = a.getByRole('textbox', { name: 'Message', exact: true });
    await composer.fill('Party time');
    await composer.press('End');
    const button = a.getByRole('button', { name: 'Emoji', exact: true });
    await button.click();
    const picker = a.getByRole('dialog', { name: 'Emoji' });
    await expect(button).toHaveAttribute('aria-expanded', 'true');
    const search = picker.getByRole('searchbox', { name: 'Search emoji' }).or(picker.getByLabel('Search emoji'));
    await expectFocused(search);
    await search.fill('party popper');
    await picker.getByRole('gridcell', { name: 'party popper' }).or(picker.getByLabel('party popper')).first().click();
    await expect(composer).toHaveValue('Party time🎉');
    expect(new Set(data)).toEqual(new Set([new URL(a.url()).origin]));
    await a.keyboard.press('Escape');
    await expect(picker).toHaveCount(0);
    await expectFocused(composer);

    // Next time, the pick leads "Recently used".
    await button.click();
    const recent = picker.getByRole('group', { name: 'Recently used' });
    await expect(recent.getByRole('button').first()).toHaveText('🎉');
    await recent.getByRole('button', { name: '🎉' }).click();
    await expect(composer).toHaveValue('Party time🎉🎉');
    await a.keyboard.press('Escape');
    await composer.press('Enter');
    await expect.poll(async () => (await bob.ws.request('history', { peerId: alice.id })).messages.length).toBe(2);

    // An emoji alone, sent, is shown large.
    await button.click();
    await picker.getByLabel('Search emoji').fill('thumbs up');
    await picker.getByLabel('thumbs up').first().click();
    await a.keyboard.press('Escape');
    await composer.press('Enter');
    // Emoji data writes it with its presentation selector (👍️).
    await expect(bubbles(a).last().locator('p')).toHaveText(/^👍\uFE0F?$/);
    await expect(bubbles(a).last().locator('p')).toHaveCSS('font-size', '48px');

    // The open picker, looked at and scanned.
    const findings: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      for (const width of [1280, 390]) {
        await a.emulateMedia({ colorScheme: scheme });
        await a.setViewportSize({ width, height: width === 390 ? 844 : 800 });
        await button.click();
        await expect(picker.getByRole('grid')).toBeVisible();
        const { violations } = await runAxe(a, undefined, '[role="dialog"][aria-label="Emoji"]');
        findings.push(...violations.flatMap((v) => v.nodes.map((n) => `${scheme} @${width}: ${v.id} at ${n.target}`)));
        await shot(a, `emoji-picker-${scheme}`);
        await a.keyboard.press('Escape');
        await expect(picker).toHaveCount(0);
      }
    }
    expect(findings).toEqual([]);
  } finally {
    await bob.close();
  }
});

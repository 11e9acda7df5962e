/**
 * The contact panel (issue 15): the peer's name in the chat header opens "Contact info"
 * with their picture, name, handle, verified badge and presence (as the header says it),
 * the security code (the same "Compare security code" dialog as the header's shield), and
 * Mute notifications (for how long, asked in a dialog) and Unmute, and the chat's
 * Archive/Unarchive and Lock/Unlock with the chat list's rules and toasts. It is a
 * named dialog: Escape closes it and focus goes back to the name. A side sheet at 1280 px,
 * the whole screen at 390 px; axe finds nothing in it, light or dark (the screen behind it
 * is a11y.spec.ts's). Screenshots:
 * e2e/screenshots/contact-panel-{light,dark}-{1280,390}.png.
 */

import type { Page } from '@playwright/test';
import { PIN, setPin, toast, write } from './archive-lock-helpers.ts';
import { runAxe } from './axe.ts';
import { chatRow, closeToasts, expect, openChat, type Person, test } from './chat-helpers.ts';
import { shot } from './fixtures.ts';
import { nodePeer } from './node-peers.ts';

function nameButton(page: Page, peer: Pick<Person, 'handle'>) {
  return page.getByRole('heading', { level: 1, name: peer.handle }).getByRole('button');
}

function panel(page: Page) {
  return page.getByRole('dialog', { name: 'Contact info' });
}

async function openPanel(page: Page, peer: Pick<Person, 'handle'>) {
  await nameButton(page, peer).click();
  await expect(panel(page)).toBeVisible();
  return panel(page);
}

test.describe('contact panel', () => {
  test('shows the peer, opens the security code, closes with Escape back to the name', async ({ people }) => {
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    await write(bob, alice, 'Hello from bob');
    const a = alice.page;
    await openChat(a, bob);

    // Bob is online (his page is open): the header and the panel say so alike.
    const presence = a.locator('header').getByText('Online', { exact: true });
    await expect(presence).toBeVisible();
    const p = await openPanel(a, bob);
    // The rest of the page is hidden from screen readers meanwhile, the name button too.
    await expect(a.locator('header h1 button')).toHaveAttribute('aria-expanded', 'true');
    await expect(p.getByText(bob.user.name, { exact: true })).toBeVisible();
    await expect(p.getByText(bob.handle, { exact: true })).toBeVisible();
    await expect(p.getByTestId('contact-presence')).toHaveText('Online');
    await expect(p.getByRole('img', { name: 'Verified' })).toHaveCount(0);
    await expect(p.getByRole('button', { name: 'Close' })).toBeFocused();
    await expect(p.getByRole('button', { name: /^Archive chat/ })).toBeVisible();
    await expect(p.getByRole('button', { name: /^Lock chat/ })).toBeVisible();

    // A side sheet at the right on a wide screen.
    const wide = await p.boundingBox();
    expect(wide?.width).toBeLessThan(500);
    expect(Math.round((wide?.x ?? 0) + (wide?.width ?? 0))).toBe(1280);

    // The security code: the chat's own dialog, over the panel; Escape closes it first.
    await p.getByRole('button', { name: /^Compare security code/ }).click();
    const code = a.getByRole('dialog', { name: 'Compare security code' });
    await expect(code.getByTestId('security-code')).toBeVisible();
    await a.keyboard.press('Escape');
    await expect(code).toHaveCount(0);
    await expect(panel(a)).toBeVisible();

    // Bob leaves: the panel follows his presence.
    await bob.page.goto('about:blank');
    await expect(p.getByTestId('contact-presence')).toHaveText(/^Last seen/);

    await a.keyboard.press('Escape');
    await expect(panel(a)).toHaveCount(0);
    await expect(nameButton(a, bob)).toBeFocused();
    await expect(nameButton(a, bob)).toHaveAttribute('aria-expanded', 'false');
    await expect(a).toHaveURL(`/chat/${bob.id}`);

    // The whole screen on a phone.
    await a.setViewportSize({ width: 390, height: 844 });
    await openPanel(a, bob);
    expect(await panel(a).boundingBox()).toEqual({ x: 0, y: 0, width: 390, height: 844 });
    await panel(a).getByRole('button', { name: 'Close' }).click();
    await expect(panel(a)).toHaveCount(0);
    await expect(nameButton(a, bob)).toBeFocused();
  });

  test('Archive, Unarchive, Lock (a PIN first) and Unlock, as the chat list does them', async ({ people }) => {
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    await write(bob, alice, 'Keep this one');
    const a = alice.page;
    await openChat(a, bob);
    let p = await openPanel(a, bob);

    await p.getByRole('button', { name: /^Archive chat/ }).click();
    await expect(toast(a, 'Chat Archived')).toBeVisible();
    await expect(p.getByRole('button', { name: /^Unarchive chat/ })).toBeVisible();
    await expect(p.getByRole('button', { name: /^Archive chat/ })).toHaveCount(0);
    await p.getByRole('button', { name: /^Unarchive chat/ }).click();
    await expect(toast(a, 'Chat Unarchived')).toBeVisible();
    await expect(p.getByRole('button', { name: /^Archive chat/ })).toBeVisible();

    // Locking needs a PIN: without one, off to Privacy settings.
    await p.getByRole('button', { name: /^Lock chat/ }).click();
    await expect(toast(a, 'PIN Required')).toBeVisible();
    await expect(a).toHaveURL('/privacy-settings');

    await setPin(a);
    await openChat(a, bob);
    p = await openPanel(a, bob);
    await p.getByRole('button', { name: /^Lock chat/ }).click();
    await expect(toast(a, 'Chat Locked')).toBeVisible();
    // Locked: only Unlock is offered, and the chat hides behind the PIN.
    await expect(p.getByRole('list', { name: 'Chat actions' }).getByRole('button')).toHaveText([/^Unlock chat/]);
    await a.keyboard.press('Escape');
    await a.getByRole('textbox', { name: 'PIN', exact: true }).fill(PIN);
    await a.getByRole('button', { name: 'Unlock', exact: true }).click();
    await expect(toast(a, 'Access Granted')).toBeVisible();

    p = await openPanel(a, bob);
    await p.getByRole('button', { name: /^Unlock chat/ }).click();
    await expect(toast(a, 'Chat Unlocked')).toBeVisible();
    await expect(p.getByRole('button', { name: /^Lock chat/ })).toBeVisible();
    await a.keyboard.press('Escape');
    await a.goto('/home');
    await expect(chatRow(a, bob.handle)).toBeVisible();
  });

  test('Mute notifications asks for how long, the list shows the chat muted, Unmute undoes it; axe finds nothing in the question', async ({
    people,
  }) => {
    const alice = await people.person('alice');
    const bob = await nodePeer('bob');
    try {
      await bob.send(alice, 'Mute me');
      const a = alice.page;
      await openChat(a, bob);
      let p = await openPanel(a, bob);
      await expect(p.getByRole('button', { name: /^Mute notifications/ })).toContainText('On');
      const ask = a.getByRole('dialog', { name: 'Mute notifications' });
      // The question, looked at and scanned at both sizes, light and dark.
      const findings: string[] = [];
      for (const scheme of ['light', 'dark'] as const) {
        for (const width of [1280, 390]) {
          await a.emulateMedia({ colorScheme: scheme });
          await a.setViewportSize({ width, height: width === 390 ? 844 : 800 });
          await openChat(a, bob);
          p = await openPanel(a, bob);
          await p.getByRole('button', { name: /^Mute notifications/ }).click();
          await expect(ask).toHaveCSS('opacity', '1');
          const { violations } = await runAxe(a, undefined, '[role="dialog"]');
          findings.push(
            ...violations.flatMap((v) => v.nodes.map((n) => `${scheme} @${width}: ${v.id} at ${n.target}`)),
          );
          await shot(a, `mute-dialog-${scheme}`);
          await a.keyboard.press('Escape');
          await expect(ask).toHaveCount(0);
          await a.keyboard.press('Escape');
        }
      }
      expect(findings).toEqual([]);
      await a.emulateMedia({ colorScheme: 'light' });
      await a.setViewportSize({ width: 1280, height: 800 });

      await openChat(a, bob);
      p = await openPanel(a, bob);
      await p.getByRole('button', { name: /^Mute notifications/ }).click();
      await ask.getByRole('radio', { name: '1 week' }).check();
      await ask.getByRole('button', { name: 'Mute', exact: true }).click();
      await expect(toast(a, 'Chat Muted for a Week')).toBeVisible();
      await expect(p.getByRole('button', { name: /^Unmute notifications/ })).toContainText(/Muted until /);
      // The list beside the chat says so.
      await a.keyboard.press('Escape');
      await expect(chatRow(a, bob.handle).getByRole('img', { name: 'Muted' })).toBeVisible();
      p = await openPanel(a, bob);
      await p.getByRole('button', { name: /^Unmute notifications/ }).click();
      await expect(toast(a, 'Chat Unmuted')).toBeVisible();
      await expect(p.getByRole('button', { name: /^Mute notifications/ })).toBeVisible();
      await a.keyboard.press('Escape');
      await expect(chatRow(a, bob.handle).getByRole('img', { name: 'Muted' })).toHaveCount(0);
    } finally {
      await bob.close();
    }
  });

  test('axe finds nothing in it; screenshots light and dark at 1280 and 390', async ({ people }) => {
    test.setTimeout(240_000);
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    await write(bob, alice, 'Screenshot time');
    const a = alice.page;
    const findings: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      await a.emulateMedia({ colorScheme: scheme });
      for (const size of [
        { width: 1280, height: 800 },
        { width: 390, height: 844 },
      ]) {
        await a.setViewportSize(size);
        await openChat(a, bob);
        await openPanel(a, bob);
        await closeToasts(a);
        // The panel itself (a11y.spec.ts scans the chat screen behind it).
        await expect(panel(a)).toHaveCSS('opacity', '1');
        const { violations } = await runAxe(a, undefined, '[role="dialog"]');
        findings.push(
          ...violations.flatMap((v) =>
            v.nodes.map((n) => `${scheme} @${size.width}: ${v.id} at ${n.target.join(' ')}`),
          ),
        );
        await shot(a, `contact-panel-${scheme}`);
        await a.keyboard.press('Escape');
        await expect(panel(a)).toHaveCount(0);
      }
    }
    expect(findings).toEqual([]);
  });
});

/**
 * Keyboard only (issue 15): signing in, Ctrl+K to find a chat, sending, ↑ to edit the last
 * message, a message's menu and a dialog from the keyboard (focus back where it was), Alt+↓
 * to the next chat and Escape back to the list, with document.activeElement checked at every
 * step; the "Keyboard shortcuts" dialog (?), Page Up/Down scrolling the conversation from
 * the composer, and a focus ring of 3:1 in light and dark.
 */
import type { Page } from '@playwright/test';
import { E2E_BASE_URL } from '../env.ts';
import { apiSignUp } from './api-accounts.ts';
import { bubble, chatRow, expect, openChat, type Person, runTag, send, test, tick } from './chat-helpers.ts';
import { makeUser, type NewUser, shot } from './fixtures.ts';
import { expectFocus, expectFocused, focused, tabTo } from './focus-helpers.ts';

const composer = (page: Page) => page.getByRole('textbox', { name: 'Message', exact: true });

/** Signs in with the keyboard only: Tab to the fields, type, Enter. */
async function keyboardSignIn(page: Page, user: NewUser): Promise<void> {
  await page.goto('/signin');
  // A keyboard user starts once the form is there (the Tab presses would otherwise run out
  // on a page still loading on a busy machine).
  await page.locator('#signin-login').waitFor();
  await tabTo(page, '#signin-login');
  await page.keyboard.type(user.username);
  await page.keyboard.press('Tab');
  await expectFocus(page, { tag: 'input' });
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('signin-password');
  await page.keyboard.type(user.password);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL('/home', { timeout: 15_000 });
}

/** Three people: alice (signed in by the test, keyboard only) and two peers who wrote to her. */
async function world(people: { person(prefix: string, opts?: { username?: string }): Promise<Person> }) {
  const tag = runTag();
  const alice = makeUser('alice', { username: `kalice_${tag}`, email: `kalice_${tag}@example.com` });
  const aliceId = (await apiSignUp(E2E_BASE_URL, alice)).id;
  const [bob, carol] = await Promise.all([
    people.person('bob', { username: `kbob_${tag}` }),
    people.person('carol', { username: `kcarol_${tag}` }),
  ]);
  const peerOfAlice = { id: aliceId, handle: `@${alice.username}` };
  for (const p of [carol, bob]) {
    await openChat(p.page, peerOfAlice);
    await send(p.page, `Hi from ${p.handle}`);
    // Stored before Alice signs in: a message landing later would reorder her list mid-test.
    await expect(tick(bubble(p.page, `Hi from ${p.handle}`), 'Sent')).toBeVisible();
  }
  return { alice, bob, carol };
}

test('keyboard only: sign in, Ctrl+K to a chat, send, ↑ to edit, the message menu, Alt+↓, Escape back', async ({
  page,
  people,
}) => {
  test.setTimeout(240_000);
  const { alice, bob, carol } = await world(people);
  await keyboardSignIn(page, alice);
  // The new screen's heading has focus, not the page's body.
  await expectFocus(page, { tag: 'h1' });
  await expect(chatRow(page, bob.handle)).toBeVisible();
  await expect(chatRow(page, carol.handle)).toBeVisible();

  // Ctrl+K opens the search with focus in it; ↓ goes to the first chat found, Enter opens it.
  await page.keyboard.press('Control+k');
  const search = page.getByRole('searchbox', { name: 'Search by username' });
  await expectFocused(search);
  await page.keyboard.type(bob.user.username.slice(0, 6));
  await expect(chatRow(page, carol.handle)).toHaveCount(0);
  await page.keyboard.press('ArrowDown');
  await expectFocus(page, { tag: 'a', href: `/chat/${bob.id}` });
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(`/chat/${bob.id}`);
  await expectFocused(composer(page));

  // Send with Enter: focus stays in the composer.
  await page.keyboard.type('Typed without a mouse');
  await page.keyboard.press('Enter');
  await expect(bubble(page, 'Typed without a mouse')).toHaveCount(1);
  await expect(composer(page)).toHaveValue('');
  await expectFocused(composer(page));
  await expect(bubble(page, 'Typed without a mouse').getByRole('img', { name: 'Pending' })).toHaveCount(0);

  // ↑ in the empty composer edits the last own message; Escape leaves edit mode, ↑ again and Enter saves.
  const editBox = page.getByRole('textbox', { name: 'Edit message', exact: true });
  await page.keyboard.press('ArrowUp');
  await expect(editBox).toHaveValue('Typed without a mouse');
  await expectFocused(editBox);
  await page.keyboard.press('Escape');
  await expect(page).toHaveURL(`/chat/${bob.id}`);
  await expectFocused(composer(page));
  await expect(composer(page)).toHaveValue('');
  await page.keyboard.press('ArrowUp');
  await expectFocused(editBox);
  await page.keyboard.press('End');
  await page.keyboard.type(', edited');
  await page.keyboard.press('Enter');
  await expect(bubble(page, 'Typed without a mouse, edited')).toHaveCount(1);
  await expectFocused(composer(page));

  // Shift+Tab from the composer reaches its Attach files and Emoji buttons, then the last
  // message's options button; Enter opens its menu.
  await page.keyboard.press('Shift+Tab');
  await expectFocus(page, { tag: 'button', name: 'Attach files' });
  await page.keyboard.press('Shift+Tab');
  await expectFocus(page, { tag: 'button', name: 'Emoji' });
  await page.keyboard.press('Shift+Tab');
  await expectFocus(page, { tag: 'button', name: expect.stringMatching(/^Options for message from you, /) });
  const optionsName = (await focused(page)).name;
  await page.keyboard.press('Enter');
  const menu = page.getByRole('menu', { name: 'Message options' });
  await expect(menu).toBeVisible();
  await expectFocus(page, { role: 'menuitem', name: 'Reply' });
  // Escape closes the menu first (the chat stays open), focus back on the options button.
  await page.keyboard.press('Escape');
  await expect(menu).toHaveCount(0);
  await expect(page).toHaveURL(`/chat/${bob.id}`);
  await expectFocus(page, { name: optionsName });
  // A dialog from the menu: Info; Escape closes it and focus is back on the options button.
  await page.keyboard.press('Enter');
  await expectFocus(page, { role: 'menuitem', name: 'Reply' });
  // Up from the first item wraps to the last: Delete, Edit, then Info.
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowUp');
  await expectFocus(page, { role: 'menuitem', name: 'Info' });
  await page.keyboard.press('Enter');
  const info = page.getByRole('dialog', { name: 'Message info' });
  await expect(info).toBeVisible();
  await expect.poll(() => info.evaluate((d) => d.contains(document.activeElement))).toBe(true);
  await page.keyboard.press('Escape');
  await expect(info).toHaveCount(0);
  await expect(page).toHaveURL(`/chat/${bob.id}`);
  await expectFocus(page, { name: optionsName });

  // Alt+↓: the next chat of the list (bob's is on top now, carol's under it), focus in its composer.
  await page.keyboard.press('Alt+ArrowDown');
  await expect(page).toHaveURL(`/chat/${carol.id}`);
  await expect(page.getByRole('heading', { level: 1, name: carol.handle })).toBeVisible();
  await expectFocused(composer(page));
  // Alt+↑ goes back up.
  await page.keyboard.press('Alt+ArrowUp');
  await expect(page).toHaveURL(`/chat/${bob.id}`);
  await expectFocused(composer(page));

  // Escape closes the chat: back on /home, focus on the row of the chat just left.
  await page.keyboard.press('Escape');
  await expect(page).toHaveURL('/home');
  await expectFocus(page, { tag: 'a', href: `/chat/${bob.id}` });
  // ↑ from the first row found goes back to the search (still open with its query on a wide window).
  await page.keyboard.press('ArrowUp');
  await expectFocused(search);
});

test('? lists the shortcuts, outside text fields only, and focus goes back where it was', async ({ page, people }) => {
  const { alice, bob } = await world(people);
  await keyboardSignIn(page, alice);
  // A keyboard user starts once the list is there (the Tab presses would otherwise run out first).
  await expect(page.locator(`a[href="/chat/${bob.id}"]`)).toBeVisible();
  await tabTo(page, `a[href="/chat/${bob.id}"]`, 20);

  await page.keyboard.press('Shift+Slash');
  const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(dialog).toBeVisible();
  for (const does of ['Search chats', 'Previous chat', 'Next chat', 'Scroll the conversation up']) {
    await expect(dialog.getByRole('definition').filter({ hasText: does })).toHaveCount(1);
  }
  await expect(dialog.getByRole('term').filter({ hasText: /Ctrl\s*\+?\s*K/ })).toHaveCount(1);
  await expect(dialog.getByText(/Edit your last message/)).toBeVisible();
  await expect.poll(() => dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expectFocus(page, { tag: 'a', href: `/chat/${bob.id}` });

  // Looked at: the dialog at both sizes, light and dark.
  for (const size of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(size);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.keyboard.press('Shift+Slash');
      await expect(dialog).toBeVisible();
      await shot(page, `keys-shortcuts-${scheme}`);
      await page.keyboard.press('Escape');
      await expect(dialog).toHaveCount(0);
      // The dialog leaves the page a moment before focus is back (Radix gives it back on a
      // timer after the removal): the next ? pressed in between is pressed on the page's
      // body, and that dialog gives focus back to the body. A keyboard user goes on from
      // where focus is.
      await expectFocus(page, { tag: 'a', href: `/chat/${bob.id}` });
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
  await expectFocus(page, { tag: 'a', href: `/chat/${bob.id}` });

  // In the composer, ? is just a character.
  await page.keyboard.press('Enter');
  await expectFocused(composer(page));
  await page.keyboard.type('Why?');
  await expect(composer(page)).toHaveValue('Why?');
  await expect(dialog).toHaveCount(0);
});

test('Settings lists the shortcuts for a mouse user, not on a touch screen', async ({ people }) => {
  const { page } = await people.person('alice');
  await page.goto('/settings');
  const row = page.getByRole('button', { name: 'Keyboard shortcuts' });
  await row.click();
  const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expectFocused(row);
});

test('Page Up and Page Down scroll the conversation while focus stays in the composer', async ({ page, people }) => {
  test.setTimeout(180_000);
  const { alice, bob } = await world(people);
  await keyboardSignIn(page, alice);
  await openChat(page, bob);
  const lines = Array.from({ length: 6 }, (_, i) => `line ${i + 1}`).join('\n');
  for (let i = 1; i <= 8; i++) await send(page, `Message ${i}\n${lines}`);
  const scroller = page.locator('[data-history-scroller]');
  const top = () => scroller.evaluate((el) => Math.round(el.scrollTop));
  await expect.poll(() => scroller.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)).toBeLessThan(5);
  await composer(page).focus();
  const bottom = await top();
  await page.keyboard.press('PageUp');
  await expect.poll(top).toBeLessThan(bottom - 200);
  await expectFocused(composer(page));
  const up = await top();
  await page.keyboard.press('PageDown');
  await expect.poll(top).toBeGreaterThan(up + 200);
  await expectFocused(composer(page));
});

/** The focus outline's contrast against the background behind the focused element. */
function ringContrast(page: Page): Promise<{ style: string; width: string; ratio: number }> {
  return page.evaluate(() => {
    const canvas = document.createElement('canvas');
    canvas.width = 1;
    canvas.height = 1;
    const ctx = canvas.getContext('2d', { willReadFrequently: true }) as CanvasRenderingContext2D;
    const rgba = (css: string) => {
      ctx.clearRect(0, 0, 1, 1);
      ctx.fillStyle = css;
      ctx.fillRect(0, 0, 1, 1);
      return [...ctx.getImageData(0, 0, 1, 1).data];
    };
    const lum = ([r = 0, g = 0, b = 0]: number[]) => {
      const c = [r, g, b].map((v) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * (c[0] ?? 0) + 0.7152 * (c[1] ?? 0) + 0.0722 * (c[2] ?? 0);
    };
    const el = document.activeElement as HTMLElement;
    const s = getComputedStyle(el);
    // The first ancestor (or the element) with an opaque enough background.
    let bg = [255, 255, 255, 255];
    for (let n: HTMLElement | null = el; n; n = n.parentElement) {
      const c = rgba(getComputedStyle(n).backgroundColor);
      if ((c[3] ?? 0) > 200) {
        bg = c;
        break;
      }
    }
    const a = lum(rgba(s.outlineColor));
    const b = lum(bg);
    return { style: s.outlineStyle, width: s.outlineWidth, ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05) };
  });
}

test('a focused chat row shows a focus ring of 3:1 or more, in light and dark', async ({ page, people }) => {
  test.setTimeout(240_000);
  const { alice, bob } = await world(people);
  await keyboardSignIn(page, alice);
  await openChat(page, bob);
  await send(page, 'A message to focus');
  // At the server before the page goes: a text sent as the page goes stays the draft.
  await expect(bubble(page, 'A message to focus').getByRole('img', { name: /^(Sent|Delivered|Read)$/ })).toBeVisible();
  await page.goto('/home');
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width > 1000 ? 800 : 844 });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await expect(page.locator('html')).toHaveClass(scheme === 'dark' ? /\bdark\b/ : /^(?!.*\bdark\b)/);
      // On a wide window the search stayed open with the last query: Ctrl+K selected it,
      // so typing replaces it, once it has the focus (pressed again if it went by too soon).
      const search = page.getByRole('searchbox', { name: 'Search by username' });
      await expect(async () => {
        await page.keyboard.press('Control+k');
        await expect(search).toBeFocused({ timeout: 2000 });
      }).toPass();
      await page.keyboard.type(bob.user.username.slice(0, 6));
      await expect(page.getByRole('searchbox', { name: 'Search by username' })).toHaveValue(
        bob.user.username.slice(0, 6),
      );
      // The list filtered to Bob's row first: ArrowDown goes to the first row there is.
      await expect(page.getByRole('list', { name: 'Chats' }).getByRole('link')).toHaveCount(1);
      await page.keyboard.press('ArrowDown');
      await expectFocus(page, { tag: 'a', href: `/chat/${bob.id}` });
      // Read again until the row's color transition has ended (a ring read mid-way is paler).
      await expect.poll(async () => (await ringContrast(page)).ratio).toBeGreaterThanOrEqual(3);
      const ring = await ringContrast(page);
      expect(ring.style).toBe('solid');
      expect(ring.width).toBe('2px');
      await shot(page, `keys-ring-row-${scheme}`);
      // The composer, a message's options button and its menu, focused from the keyboard.
      await page.keyboard.press('Enter');
      await expectFocused(composer(page));
      await shot(page, `keys-ring-composer-${scheme}`);
      await page.keyboard.press('Shift+Tab');
      await expectFocus(page, { tag: 'button', name: 'Attach files' });
      await page.keyboard.press('Shift+Tab');
      await expectFocus(page, { tag: 'button', name: 'Emoji' });
      await page.keyboard.press('Shift+Tab');
      await expectFocus(page, { tag: 'button', name: expect.stringMatching(/^Options for message from you, /) });
      await shot(page, `keys-ring-options-${scheme}`);
      await page.keyboard.press('Enter');
      await expectFocus(page, { role: 'menuitem', name: 'Reply' });
      for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowUp');
      await expectFocus(page, { role: 'menuitem', name: 'Info' });
      await expect.poll(async () => (await ringContrast(page)).ratio).toBeGreaterThanOrEqual(3);
      expect((await ringContrast(page)).style).toBe('solid');
      await shot(page, `keys-ring-menu-${scheme}`);
      await page.keyboard.press('Escape');
      await page.keyboard.press('Escape');
      await expect(page).toHaveURL('/home');
      await expectFocus(page, { tag: 'a', href: `/chat/${bob.id}` });
    }
  }
});

test('on a phone-width screen Ctrl+K leaves the chat for the list, its search focused', async ({ page, people }) => {
  const { alice, bob } = await world(people);
  await keyboardSignIn(page, alice);
  await page.setViewportSize({ width: 390, height: 844 });
  await openChat(page, bob);
  await composer(page).focus();
  await page.keyboard.press('Control+k');
  await expect(page).toHaveURL('/home');
  await expectFocused(page.getByRole('searchbox', { name: 'Search by username' }));
  await page.keyboard.type(bob.user.username.slice(0, 6));
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(`/chat/${bob.id}`);
  await expectFocused(composer(page));
  // Escape on the phone: the list again, focus on the chat's row.
  await page.keyboard.press('Escape');
  await expect(page).toHaveURL('/home');
  await expectFocus(page, { tag: 'a', href: `/chat/${bob.id}` });
});

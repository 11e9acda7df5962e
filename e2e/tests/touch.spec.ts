/**
 * Touch screens (issue 15), in a 390 px phone context with touch (pointer: coarse):
 * - a long press (~500 ms) on a message bubble opens the message menu; a tap, or a press
 *   that moves (a scroll), does not; there is no ⋮ button shown beside every bubble, yet
 *   the named button is still there for screen readers and shows when a keyboard focuses it;
 * - every visible button, link and switch on /home, a chat, /settings and /contacts is a
 *   target of at least 44 × 44 px. Left out: visually hidden elements (1 px, for screen
 *   readers only, which nobody taps) and links inside a paragraph of text (inline links,
 *   which WCAG 2.5.8 exempts). Screenshots: e2e/screenshots/touch-menu-{light,dark}-{390,1280}.png.
 */
import type { Browser, BrowserContext, CDPSession, Locator, Page } from '@playwright/test';
import { E2E_BASE_URL } from '../env.ts';
import { write } from './archive-lock-helpers.ts';
import {
  bubble,
  closeToasts,
  expect,
  messageMenu,
  openChat,
  optionsButton,
  type Person,
  test,
} from './chat-helpers.ts';
import { shot, signInViaApi } from './fixtures.ts';

async function phone(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    baseURL: E2E_BASE_URL,
  });
}

/** A finger rests on the middle of `target` for `ms`, moving `drift` px down meanwhile, then lifts. */
async function press(cdp: CDPSession, page: Page, target: Locator, ms: number, drift = 0): Promise<void> {
  const box = await target.boundingBox();
  if (!box) throw new Error('no box to press');
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y }] });
  if (drift) {
    for (let i = 1; i <= 4; i++) {
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x, y: y + (drift * i) / 4 }] });
    }
  }
  await page.waitForTimeout(ms);
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
}

/** A context of alice's on a phone, in the chat with `peer`. */
async function aliceOnPhone(browser: Browser, alice: Person, peer: Person) {
  const context = await phone(browser);
  const page = await context.newPage();
  await signInViaApi(page, alice.user.email, alice.user.password);
  await openChat(page, peer);
  return { context, page, cdp: await context.newCDPSession(page) };
}

/** Visible interactive elements smaller than 44 × 44 px, as 'tag "name" w×h'. */
async function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>(
      'button, a[href], [role="switch"], [role="button"], [role="link"], input[type="checkbox"], input[type="radio"], summary',
    )) {
      const r = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden' || style.display === 'none') continue;
      // Visually hidden (screen readers only), or not laid out.
      if (r.width <= 1 || r.height <= 1) continue;
      // An inline link in a paragraph of text.
      if (el.tagName === 'A' && el.closest('p') && style.display === 'inline') continue;
      if (r.width >= 44 && r.height >= 44) continue;
      const name = (el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40);
      found.push(`${el.tagName.toLowerCase()} "${name}" ${Math.round(r.width)}×${Math.round(r.height)}`);
    }
    return found;
  });
}

test.describe('touch screens', () => {
  test('a long press opens the message menu; no ⋮ beside the bubbles, but the keyboard still has it', async ({
    browser,
    people,
  }) => {
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    await write(bob, alice, 'Press and hold me');
    await write(bob, alice, 'And me too');
    const { context, page, cdp } = await aliceOnPhone(browser, alice, bob);
    expect(await page.evaluate(() => matchMedia('(pointer: coarse)').matches)).toBe(true);

    const held = bubble(page, 'Press and hold me');
    await expect(held).toBeVisible();
    // The options button is there for screen readers, named as ever, but takes no room.
    const options = optionsButton(held);
    await expect(options).toHaveAccessibleName(/^Options for message from @bob_\w+, \d{1,2}:\d{2}\s[AP]M$/);
    const hidden = await options.boundingBox();
    expect(hidden?.width).toBeLessThanOrEqual(1);
    // No native text selection (or iOS callout) to fight the long press.
    await expect(held).toHaveCSS('user-select', 'none');

    // A tap is no press; a press that drifts is a scroll.
    await press(cdp, page, held, 100);
    await page.waitForTimeout(600);
    await expect(messageMenu(page)).toHaveCount(0);
    await press(cdp, page, held, 800, 40);
    await expect(messageMenu(page)).toHaveCount(0);

    // A long press: the menu, beside the bubble (not under the finger, nor over the bubble).
    await press(cdp, page, held, 700);
    const menu = messageMenu(page);
    await expect(menu).toBeVisible();
    const m = await menu.boundingBox();
    const b = await held.boundingBox();
    if (!m || !b) throw new Error('no boxes');
    expect(m.y >= b.y + b.height || m.y + m.height <= b.y, 'the menu leaves the bubble in sight').toBe(true);
    await expect(menu.getByRole('menuitem')).toHaveText(['Reply', 'React', 'Forward', 'Copy', 'Info']);
    await expect(menu.getByRole('menuitem', { name: 'Reply' })).toBeFocused();
    await closeToasts(page);
    await shot(page, 'touch-menu-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, 'touch-menu-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await menu.getByRole('menuitem', { name: 'Info' }).tap();
    const info = page.getByRole('dialog', { name: 'Message info' });
    await expect(info).toBeVisible();
    await info.getByRole('button', { name: 'Close' }).tap();
    await expect(info).toHaveCount(0);
    // The ⋮ button got focus back, yet a finger's focus does not show it.
    await expect(options).toBeFocused();
    expect((await options.boundingBox())?.width).toBeLessThanOrEqual(1);

    // A keyboard (a tablet's) reaches the button: it shows, at 44 px, and opens the menu.
    await page.getByRole('region', { name: `Conversation with ${bob.handle}` }).focus();
    await page.keyboard.press('Tab');
    const first = optionsButton(bubble(page, 'Press and hold me'));
    await expect(first).toBeFocused();
    const shown = await first.boundingBox();
    expect(shown?.width).toBeGreaterThanOrEqual(44);
    expect(shown?.height).toBeGreaterThanOrEqual(44);
    await page.keyboard.press('Enter');
    await expect(messageMenu(page)).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(messageMenu(page)).toHaveCount(0);
    await expect(first).toBeFocused();

    // A touch screen at 1280 px (a tablet, a touch laptop): the same menu, shot in both themes.
    await page.setViewportSize({ width: 1280, height: 800 });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      // The two panes settle after the resize: a press aimed while the bubble still moved
      // lands beside it, so aim again until the menu opens.
      await expect(held).toBeInViewport();
      await expect(async () => {
        if (!(await messageMenu(page).isVisible())) await press(cdp, page, held, 700);
        await expect(messageMenu(page)).toBeVisible({ timeout: 3000 });
      }).toPass({ timeout: 30_000 });
      await closeToasts(page);
      await shot(page, `touch-menu-${scheme}`);
      await page.keyboard.press('Escape');
      await expect(messageMenu(page)).toHaveCount(0);
    }
    await context.close();
  });

  test('every button, link and switch is at least 44 × 44 px on /home, a chat, /settings and /contacts', async ({
    browser,
    people,
  }) => {
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    await write(alice, bob, 'A chat to list, with https://example.com/x in it');
    await write(bob, alice, 'A reply');
    const { context, page } = await aliceOnPhone(browser, alice, bob);
    const small: string[] = [];
    const check = async (where: string) => {
      await expect(page.getByLabel('Loading', { exact: true })).toHaveCount(0);
      await closeToasts(page);
      small.push(...(await smallTargets(page)).map((s) => `${where}: ${s}`));
    };
    await check('chat');
    for (const [path, heading] of [
      ['/home', undefined],
      ['/settings', 'Settings'],
      ['/contacts', 'Contacts'],
    ] as const) {
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1, ...(heading ? { name: heading } : {}) })).toBeVisible();
      if (path === '/home') await expect(page.getByRole('list', { name: 'Chats' })).toBeVisible();
      if (path === '/contacts')
        await expect(page.getByRole('list', { name: 'Users' }).getByRole('listitem').first()).toBeVisible();
      // No keyboard, no "Keyboard shortcuts" row in Settings.
      if (path === '/settings')
        await expect(
          page.getByRole('button', { name: 'About' }).or(page.getByRole('link', { name: 'About' })),
        ).toBeVisible();
      if (path === '/settings') await expect(page.getByRole('button', { name: 'Keyboard shortcuts' })).toHaveCount(0);
      await check(path);
    }
    expect(small).toEqual([]);
    await context.close();
  });
});

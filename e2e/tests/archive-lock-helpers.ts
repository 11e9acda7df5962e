/** What the archive and locked-chat browser tests share: their rows, menus, the PIN gate and the toasts. */
import type { Locator, Page } from '@playwright/test';
import { bubble, chatRow, expect, openChat, type Person, send } from './chat-helpers.ts';

export const PIN = '123456';

/** `from` writes `text` to `to` (from their chat page) and waits until it is stored. */
export async function write(from: Person, to: Person, text: string): Promise<void> {
  if (!from.page.url().endsWith(`/chat/${to.id}`)) await openChat(from.page, to);
  await send(from.page, text);
  await expect(bubble(from.page, text).getByRole('img', { name: 'Pending' })).toHaveCount(0);
}

/** Sets the user's first PIN through the API (the page's context has the session). */
export async function setPin(page: Page, pin = PIN): Promise<void> {
  const res = await page.request.put('/api/me/pin', { data: { pin } });
  expect(res.status(), await res.text()).toBe(200);
}

export function toast(page: Page, title: string): Locator {
  return page.locator('[data-sonner-toast]').filter({ hasText: title });
}

/** The 'Archived' and 'Locked' shortcuts of /home. */
export function archivedLink(page: Page): Locator {
  return page.getByRole('link', { name: /^Archived\b/ });
}
export function lockedLink(page: Page): Locator {
  return page.getByRole('link', { name: /^Locked\b/ });
}

export function archivedRows(page: Page): Locator {
  return page.getByRole('list', { name: 'Archived chats' }).getByRole('listitem');
}
export function archivedRow(page: Page, handle: string): Locator {
  return archivedRows(page).filter({ has: page.getByText(handle, { exact: true }) });
}
export function lockedRows(page: Page): Locator {
  return page.getByRole('list', { name: 'Locked chats' }).getByRole('listitem');
}
export function lockedRow(page: Page, handle: string): Locator {
  return lockedRows(page).filter({ has: page.getByText(handle, { exact: true }) });
}

/** Opens the row menu of `handle` (by its ⋯ button or a right-click) and picks `item`. */
export async function rowMenu(page: Page, row: Locator, handle: string, item: string, how: 'button' | 'right-click') {
  if (how === 'button') await row.getByRole('button', { name: `Chat options for ${handle}` }).click();
  else await row.getByRole('link').click({ button: 'right' });
  const menu = page.getByRole('menu', { name: `Chat options for ${handle}` });
  await menu.getByRole('menuitem', { name: item, exact: true }).click();
  await expect(menu).toHaveCount(0);
}

export async function openHome(page: Page): Promise<void> {
  await page.goto('/home');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
}

/** The PIN gate's parts. */
export function gate(page: Page) {
  return {
    heading: page.getByRole('heading', { name: /Enter PIN/ }),
    input: page.getByRole('textbox', { name: 'PIN', exact: true }),
    unlock: page.getByRole('button', { name: 'Unlock', exact: true }),
    cancel: page.getByRole('button', { name: 'Cancel', exact: true }),
    forgot: page.getByRole('link', { name: 'Forgot PIN?' }),
  };
}

/** Opens /locked and passes the gate with `pin`. */
export async function enterLocked(page: Page, pin = PIN): Promise<void> {
  await page.goto('/locked');
  const g = gate(page);
  await expect(g.heading).toBeVisible();
  await g.input.fill(pin);
  await g.unlock.click();
  await expect(toast(page, 'Access Granted')).toBeVisible();
  await expect(g.input).toHaveCount(0);
}

/** Locks the chat with `peer` from /home's row menu (a PIN must exist). */
export async function lockFromHome(page: Page, peer: Person): Promise<void> {
  await openHome(page);
  await rowMenu(page, chatRow(page, peer.handle), peer.handle, 'Lock', 'button');
  await expect(toast(page, 'Chat Locked')).toBeVisible();
  await expect(chatRow(page, peer.handle)).toHaveCount(0);
}

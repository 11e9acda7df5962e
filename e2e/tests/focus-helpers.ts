/** Where keyboard focus is, and getting it somewhere with the keys, for the keyboard tests. */
import type { Locator, Page } from '@playwright/test';
import { expect } from './fixtures.ts';

/** The focused element: its tag, name (aria-label or text), href and role. */
export function focused(page: Page): Promise<{ tag: string; name: string; href: string | null; role: string | null }> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return {
      tag: el?.tagName.toLowerCase() ?? '',
      name: el?.getAttribute('aria-label') ?? el?.textContent?.trim() ?? '',
      href: el?.getAttribute('href') ?? null,
      role: el?.getAttribute('role') ?? null,
    };
  });
}

/** Waits for the focused element to match `expected`. */
export async function expectFocus(page: Page, expected: Record<string, unknown>): Promise<void> {
  await expect.poll(() => focused(page)).toMatchObject(expected);
}

/** Waits for `locator` to be the focused element. */
export async function expectFocused(locator: Locator): Promise<void> {
  await expect.poll(() => locator.evaluate((el) => el === document.activeElement)).toBe(true);
}

/** Presses Tab until the focused element matches `selector` (at most `max` times). */
export async function tabTo(page: Page, selector: string, max = 12): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

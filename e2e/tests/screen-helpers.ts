/**
 * Helpers for the screen tests (splash, static pages, settings, home, headers, screenshots):
 * a fresh signed-in user and the administrator's help link written straight into the server's SQLite file.
 */
import path from 'node:path';
import { expect, type Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { E2E_DATA_DIR } from '../env.ts';
import { createUserViaApi, makeUser, type NewUser } from './fixtures.ts';
import { signInPrepared } from './signed-in.ts';

/** Creates a new (unverified) user through the API and gives the page's context its session cookie. */
export async function signInNewUser(page: Page, prefix = 'u'): Promise<NewUser> {
  const user = makeUser(prefix);
  await createUserViaApi(page.request, user);
  await signInPrepared(page, user);
  return user;
}

/** Sets (or with null removes) the global help link in the running server's database. */
export function setHelpLink(value: string | null): void {
  const db = new Database(path.join(E2E_DATA_DIR, 'parley.sqlite'));
  try {
    db.pragma('busy_timeout = 5000');
    if (value === null) db.prepare("DELETE FROM settings WHERE key = 'helpLink'").run();
    else
      db.prepare(
        "INSERT INTO settings(key, value) VALUES('helpLink', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      ).run(value);
  } finally {
    db.close();
  }
}

/**
 * Asserts that the page does not scroll sideways at its viewport width, once layout has
 * settled after a resize; on failure the message names the elements reaching past the edge.
 */
export async function expectNoSidewaysScroll(page: Page, what = 'page'): Promise<void> {
  const width = page.viewportSize()?.width ?? 0;
  await expect
    .poll(
      () =>
        page.evaluate((w) => {
          const sw = document.documentElement.scrollWidth;
          if (sw <= w) return 'none';
          const wide = [...document.querySelectorAll('body *')]
            .filter((e) => e.getBoundingClientRect().right > w + 0.5)
            .slice(-5)
            .map((e) => {
              const r = e.getBoundingClientRect();
              const cls = typeof e.className === 'string' ? e.className.slice(0, 80) : '';
              return `<${e.tagName.toLowerCase()} class="${cls}"> ${Math.round(r.left)}..${Math.round(r.right)} "${(e.textContent ?? '').slice(0, 40)}"`;
            });
          return `scrollWidth ${sw} > ${w}: ${wide.join(' | ')}`;
        }, width),
      { message: `${what}: no sideways scrolling at ${width} px` },
    )
    .toBe('none');
}

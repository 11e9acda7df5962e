/**
 * Helpers for the screen tests (splash, static pages, settings, home, headers, screenshots):
 * a fresh signed-in user and the administrator's help link written straight into the server's SQLite file.
 */
import path from 'node:path';
import type { Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { E2E_DATA_DIR } from '../env.ts';
import { createUserViaApi, makeUser, type NewUser, signInViaApi } from './fixtures.ts';

/** Creates a new (unverified) user through the API and gives the page's context its session cookie. */
export async function signInNewUser(page: Page, prefix = 'u'): Promise<NewUser> {
  const user = makeUser(prefix);
  await createUserViaApi(page.request, user);
  await signInViaApi(page, user.email, user.password);
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

/** True when the page is wider than its viewport (horizontal scrolling). */
export async function scrollWidth(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth);
}

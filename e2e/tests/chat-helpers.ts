/**
 * Helpers for the chat tests: people (a user, their own browser context and a signed-in
 * page), and the chat screens' parts found the way a person would: chat rows, message
 * bubbles with their ticks, the message menu and the composer.
 */
import { type Browser, type BrowserContext, devices, type Locator, type Page } from '@playwright/test';
import { E2E_BASE_URL } from '../env.ts';
import { apiSignUp } from './api-accounts.ts';
import { test as base, createUserViaApi, expect, makeUser, type NewUser, shot } from './fixtures.ts';
import { signInPrepared } from './signed-in.ts';

export { expect };

export interface Person {
  user: NewUser;
  id: string;
  /** '@username' */
  handle: string;
  context: BrowserContext;
  page: Page;
}

export interface People {
  /** A new user (via the API) with their own browser context, signed in, on a blank page. */
  person(prefix: string, opts?: PersonOptions): Promise<Person>;
  /** A context (with a blank page) signed in as an existing user. */
  signIn(user: NewUser, id: string, opts?: PersonOptions): Promise<Person>;
}

export interface PersonOptions {
  /** Another server (the restart test); the users are then created there. */
  baseURL?: string;
  permissions?: string[];
  username?: string;
}

/** A short tag unique to this test run, for handles that several users share. */
export function runTag(): string {
  return `${Date.now().toString(36).slice(-4)}${Math.random().toString(36).slice(2, 5)}`;
}

async function newContext(browser: Browser, baseURL: string, permissions?: string[]): Promise<BrowserContext> {
  return browser.newContext({
    ...devices['Desktop Chrome'],
    viewport: { width: 1280, height: 800 },
    baseURL,
    permissions,
  });
}

/**
 * `people`: each person in a context of their own (closed after the test), with the same
 * guard as the default page: a CSP violation or an uncaught page error fails the test.
 */
export const test = base.extend<{ people: People }>({
  people: async ({ browser, request }, use) => {
    const contexts: BrowserContext[] = [];
    const problems: string[] = [];
    const guard = (page: Page) => {
      page.on('console', (msg) => {
        if (msg.type() === 'error' && /Content Security Policy|Refused to/i.test(msg.text())) problems.push(msg.text());
      });
      page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    };
    const signIn: People['signIn'] = async (user, id, opts = {}) => {
      const baseURL = opts.baseURL ?? E2E_BASE_URL;
      const context = await newContext(browser, baseURL, opts.permissions);
      contexts.push(context);
      context.on('page', guard);
      const page = await context.newPage();
      await signInPrepared(page, user, baseURL);
      return { user, id, handle: `@${user.username}`, context, page };
    };
    const person: People['person'] = async (prefix, opts = {}) => {
      const { username } = opts;
      const user = makeUser(prefix, username ? { username, email: `${username.toLowerCase()}@example.com` } : {});
      let id: string;
      if (!opts.baseURL || opts.baseURL === E2E_BASE_URL) {
        id = (await createUserViaApi(request, user)).id;
      } else {
        id = (await apiSignUp(opts.baseURL, user)).id;
      }
      return signIn(user, id, opts);
    };
    await use({ person, signIn });
    for (const c of contexts) await c.close().catch(() => {});
    expect(problems, 'CSP violations or page errors in the chat contexts').toEqual([]);
  },
});

// ---- /home -----------------------------------------------------------------------------

/** The rows of the chat list. */
export function chatRows(page: Page): Locator {
  return page.getByRole('list', { name: 'Chats' }).getByRole('listitem');
}

/** The chat list's row for `handle`. */
export function chatRow(page: Page, handle: string): Locator {
  return chatRows(page).filter({ has: page.getByText(handle, { exact: true }) });
}

/** The unread badge of a row ('2 unread'). */
export function unreadBadge(row: Locator): Locator {
  return row.getByText(/^\d+\+? unread$/);
}

/** en-US hour:minute, as the lists and bubbles show it ('3:04 PM'; ICU may put a narrow space before PM). */
export const CLOCK = /^\d{1,2}:\d{2}\s[AP]M$/;

// ---- /chat/:userId ---------------------------------------------------------------------

/** Every message bubble on the page. */
export function bubbles(page: Page): Locator {
  return page.locator('[data-message-id]');
}

/** The bubble(s) whose text is exactly `text` (the time, 'edited' and ticks follow it). */
export function bubble(page: Page, text: string): Locator {
  return bubbles(page).filter({ has: page.locator('p', { hasText: new RegExp(`^${escapeRegExp(text)}$`) }) });
}

/** The tick (or pending clock) of an own bubble, by its accessible name. */
export function tick(b: Locator, name: 'Pending' | 'Sent' | 'Delivered' | 'Read'): Locator {
  return b.getByRole('img', { name, exact: true });
}

/**
 * The "Not sent" marker under an own bubble whose message failed (a button that opens
 * the message menu; the reason is its title and description).
 */
export function notSent(b: Locator): Locator {
  // The bubble's row, then the list item holding the row and the marker's line.
  return b.locator('xpath=../..').getByRole('button', { name: 'Not sent', exact: true });
}

/** Waits for the conversation with `peer` to be open and ready for typing. */
export async function openChat(page: Page, peer: Pick<Person, 'id' | 'handle'>): Promise<void> {
  await page.goto(`/chat/${peer.id}`);
  await expect(page.getByRole('heading', { level: 1, name: peer.handle })).toBeVisible();
  await expect(page.getByRole('region', { name: `Conversation with ${peer.handle}` })).toBeVisible();
}

/** Types and sends a message with Enter (or the Send button). */
export async function send(page: Page, text: string, via: 'enter' | 'button' = 'enter'): Promise<void> {
  const input = page.getByRole('textbox', { name: 'Message', exact: true });
  await input.fill(text);
  if (via === 'enter') await input.press('Enter');
  else await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(input).toHaveValue('');
}

/** The open message menu. */
export function messageMenu(page: Page): Locator {
  return page.getByRole('menu', { name: 'Message options' });
}

/** A bubble's options button ('Options for message from @bob, 3:04 PM'). */
export function optionsButton(b: Locator): Locator {
  return b.locator('..').getByRole('button', { name: /^Options for message from / });
}

/** Opens the message menu of a bubble with its options button (or a right-click). */
export async function openMessageMenu(page: Page, b: Locator, how: 'button' | 'right-click' = 'button') {
  if (how === 'right-click') {
    await b.click({ button: 'right' });
  } else {
    await b.hover();
    await optionsButton(b).click();
  }
  await expect(messageMenu(page)).toBeVisible();
  return messageMenu(page);
}

/** Closes every toast, so they do not cover what a screenshot should show. */
export async function closeToasts(page: Page): Promise<void> {
  await page.evaluate(() => {
    for (const b of document.querySelectorAll<HTMLButtonElement>(
      '[data-sonner-toast] button[aria-label="Close toast"]',
    ))
      b.click();
  });
  await expect(page.locator('[data-sonner-toast]')).toHaveCount(0);
}

/**
 * A screenshot at 1280x800 and at 390x844. `prepare` runs after each resize and puts the
 * screen in the state to show (a menu closes when the window is resized).
 */
export async function shotSizes(page: Page, name: string, prepare?: () => Promise<void>): Promise<void> {
  for (const size of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(size);
    await closeToasts(page);
    if (prepare) await prepare();
    await shot(page, name);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Sets the signed-in user's privacy through the API from their page (same origin, their cookie). */
export async function setPrivacy(
  page: Page,
  change: Partial<{ readReceipts: boolean; lastSeen: boolean; requireRequest: boolean }>,
): Promise<void> {
  const status = await page.evaluate(
    async (body) =>
      (
        await fetch('/api/me/privacy', {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).status,
    { readReceipts: true, lastSeen: true, requireRequest: false, ...change },
  );
  expect(status).toBe(200);
}

/**
 * The entries of this page's IndexedDB outbox (database 'parley', store 'outbox'), oldest
 * first: whether the text is kept sealed (never in the clear), and the failure code.
 */
export function outboxEntries(page: Page): Promise<{ sealed: boolean; failed: string | null }[]> {
  return page.evaluate(
    () =>
      new Promise<{ sealed: boolean; failed: string | null }[]>((resolve, reject) => {
        const req = indexedDB.open('parley');
        req.onerror = () => reject(req.error);
        req.onsuccess = () => {
          const db = req.result;
          if (!db.objectStoreNames.contains('outbox')) {
            db.close();
            resolve([]);
            return;
          }
          const all = db.transaction('outbox').objectStore('outbox').getAll();
          all.onsuccess = () => {
            db.close();
            const rows = all.result as {
              sealed?: string;
              text?: string;
              createdAt: number;
              failed?: { code: string };
            }[];
            rows.sort((a, b) => a.createdAt - b.createdAt);
            resolve(
              rows.map((r) => ({
                sealed: typeof r.sealed === 'string' && r.sealed.length > 0 && r.text === undefined,
                failed: r.failed?.code ?? null,
              })),
            );
          };
          all.onerror = () => reject(all.error);
        };
      }),
  );
}

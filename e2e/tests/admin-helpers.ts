/**
 * Helpers for the /admin tests. Admin actions (broadcasts, the help link, badges) reach
 * every user of a server, so these tests run on a server of their own (one per worker,
 * shared by the admin spec files), with its administrator (admin@example.com, e-mail
 * verified) created once per worker.
 */
import type { BrowserContext, Locator, Page } from '@playwright/test';
import { apiSignUp } from './api-accounts.ts';
import { expectToast } from './auth-helpers.ts';
import {
  test as base,
  closeToasts,
  escapeRegExp,
  expect,
  type People,
  type Person,
  type PersonOptions,
  runTag,
} from './chat-helpers.ts';
import { makeUser, type NewUser } from './fixtures.ts';
import { type PrivateServer, startPrivateServer, withDb } from './private-server.ts';

export type { People, Person, PrivateServer };
export { closeToasts, escapeRegExp, expect, expectToast, runTag, withDb };

export const ADMIN_EMAIL = 'admin@example.com';

export interface Account {
  user: NewUser;
  id: string;
  handle: string;
}

/** Creates accounts through the server's sign-up API, `batch` at a time. */
export async function signUpAll(baseURL: string, users: NewUser[], batch = 25): Promise<Account[]> {
  const out: Account[] = [];
  for (let i = 0; i < users.length; i += batch) {
    const created = await Promise.all(
      users.slice(i, i + batch).map(async (user) => {
        const { id } = await apiSignUp(baseURL, user);
        return { user, id, handle: `@${user.username}` };
      }),
    );
    out.push(...created);
  }
  return out;
}

export const test = base.extend<
  {
    /** People on this worker's own server. */
    world: People;
    /** The administrator, signed in (a context of their own) with /admin open on the Users tab. */
    adminPerson: Person;
  },
  { server: PrivateServer; admin: Account }
>({
  server: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright fixtures take their dependencies as a pattern.
    async ({}, use) => {
      const server = await startPrivateServer();
      await use(server);
      await server.stop();
    },
    { scope: 'worker', timeout: 60_000 },
  ],
  admin: [
    async ({ server }, use) => {
      const [account] = await signUpAll(server.baseURL, [makeUser('admin', { email: ADMIN_EMAIL })]);
      if (!account) throw new Error('no admin');
      // Admin power needs the verified e-mail.
      setEmailVerified(server, account.id, true);
      await use(account);
    },
    { scope: 'worker' },
  ],
  world: async ({ people, server }, use) => {
    const at = (opts: PersonOptions = {}): PersonOptions => ({ ...opts, baseURL: server.baseURL });
    await use({
      person: (prefix, opts) => people.person(prefix, at(opts)),
      signIn: (user, id, opts) => people.signIn(user, id, at(opts)),
    });
  },
  adminPerson: async ({ world, admin }, use) => {
    const person = await world.signIn(admin.user, admin.id);
    await openAdmin(person.page);
    await use(person);
  },
});

// ---- the database ---------------------------------------------------------------------

export function setEmailVerified(server: PrivateServer, userId: string, verified: boolean): void {
  withDb(server.dbFile, (db) => {
    const r = db.prepare('UPDATE users SET email_verified = ? WHERE id = ?').run(verified ? 1 : 0, userId);
    if (r.changes !== 1) throw new Error(`no user ${userId}`);
  });
}

export function userFlags(server: PrivateServer, userId: string): { verified: number; blocked: number } {
  return withDb(server.dbFile, (db) => db.prepare('SELECT verified, blocked FROM users WHERE id = ?').get(userId)) as {
    verified: number;
    blocked: number;
  };
}

export function countUsers(server: PrivateServer): number {
  return withDb(server.dbFile, (db) => (db.prepare('SELECT count(*) AS n FROM users').get() as { n: number }).n);
}

export interface BroadcastRow {
  id: string;
  message: string;
  video_url: string | null;
  image_url: string | null;
  timestamp: number;
}

export function broadcastRows(server: PrivateServer): BroadcastRow[] {
  return withDb(server.dbFile, (db) =>
    db.prepare('SELECT id, message, video_url, image_url, timestamp FROM notifications ORDER BY id').all(),
  ) as BroadcastRow[];
}

/** Removes every broadcast (for a test that needs none, or after a test that sent some). */
export function clearBroadcasts(server: PrivateServer): void {
  withDb(server.dbFile, (db) => db.prepare('DELETE FROM notifications').run());
}

export function deleteBroadcastsMatching(server: PrivateServer, tag: string): void {
  withDb(server.dbFile, (db) => db.prepare("DELETE FROM notifications WHERE message LIKE '%' || ? || '%'").run(tag));
}

/** The stored help link (null without one). */
export function helpLinkOf(server: PrivateServer): string | null {
  return withDb(server.dbFile, (db) => {
    const row = db.prepare("SELECT value FROM settings WHERE key = 'helpLink'").get() as { value: string } | undefined;
    return row?.value ?? null;
  });
}

export function clearHelpLink(server: PrivateServer): void {
  withDb(server.dbFile, (db) => db.prepare("DELETE FROM settings WHERE key = 'helpLink'").run());
}

// ---- /admin ---------------------------------------------------------------------------

/** Opens /admin and waits for the dashboard with its user count. */
export async function openAdmin(page: Page): Promise<void> {
  await page.goto('/admin');
  await expect(page.getByRole('heading', { level: 1, name: 'Admin Dashboard' })).toBeVisible();
  await expect(page.getByTestId('total-users')).toBeVisible();
}

export type AdminTab = 'Users' | 'Notifications' | 'Settings' | 'Activity';

export async function openTab(page: Page, name: AdminTab): Promise<void> {
  const tab = page.getByRole('tab', { name, exact: true });
  await tab.click();
  await expect(tab).toHaveAttribute('aria-selected', 'true');
}

export function userRows(page: Page): Locator {
  return page.getByTestId('admin-user-row');
}

/** The admin list's row of `username`. */
export function userRow(page: Page, username: string): Locator {
  return page.locator(`[data-testid="admin-user-row"][data-username="${username}"]`);
}

/**
 * Types into the Users tab's search and waits for the server's answer to exactly this
 * query (the list shows it then), so nothing clicked afterwards is replaced by a stale page.
 */
export async function searchUsers(page: Page, query: string): Promise<void> {
  const answered = page.waitForResponse((r) => {
    const url = new URL(r.url());
    return (
      url.pathname === '/api/admin/users' &&
      url.searchParams.get('query') === query.trim() &&
      !url.searchParams.has('after') &&
      r.request().method() === 'GET'
    );
  });
  await page.getByRole('searchbox', { name: 'Search users' }).fill(query);
  expect((await answered).status()).toBe(200);
}

/** Finds `username` with the search box and returns its row (the only one). */
export async function findUser(page: Page, username: string): Promise<Locator> {
  await searchUsers(page, username);
  const row = userRow(page, username);
  await expect(row).toBeVisible();
  await expect(userRows(page)).toHaveCount(1);
  return row;
}

/** The Notifications tab's form fields. */
export function broadcastForm(page: Page) {
  return {
    message: page.locator('#broadcast-message'),
    video: page.locator('#broadcast-video'),
    image: page.locator('#broadcast-image'),
    send: page.getByRole('button', { name: 'Send Notification', exact: true }),
    update: page.getByRole('button', { name: 'Update Notification', exact: true }),
    cancel: page.getByRole('button', { name: 'Cancel', exact: true }),
  };
}

export function sentItems(page: Page): Locator {
  return page.getByTestId('sent-notification');
}

/** Sends a broadcast through the form and waits for it to head the sent list. */
export async function sendBroadcast(
  page: Page,
  b: { message: string; videoUrl?: string; imageUrl?: string },
): Promise<void> {
  const form = broadcastForm(page);
  await closeToasts(page);
  await form.message.fill(b.message);
  await form.video.fill(b.videoUrl ?? '');
  await form.image.fill(b.imageUrl ?? '');
  await form.send.click();
  await expectToast(page, 'Notification Sent', undefined, 'success');
  await expect(sentItems(page).first()).toContainText(b.message);
  await expect(form.message).toHaveValue('');
}

// ---- what users see ---------------------------------------------------------------------

/** The bell on /home (its name says how many are unread). */
export function bell(page: Page): Locator {
  return page.getByRole('link', { name: /^Notifications/ });
}

/** The unread count the bell announces (0 without a count). */
export async function bellCount(page: Page): Promise<number> {
  const name = (await bell(page).getAttribute('aria-label')) ?? '';
  const m = /, (\d+) unread/.exec(name);
  return m ? Number(m[1]) : 0;
}

/** The items of /notifications, top to bottom. */
export function notificationItems(page: Page): Locator {
  return page.getByRole('list', { name: 'Notifications' }).getByRole('article');
}

/** The settings row with this label. */
export function settingsRow(page: Page, label: string): Locator {
  return page.locator('main li').filter({ has: page.getByText(label, { exact: true }) });
}

const PNG_1PX = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/** Serves the pictures and video players the broadcasts point at: the e2e machine has no internet. */
export async function routeMedia(context: BrowserContext): Promise<void> {
  await context.route('https://i.example.com/**', (route) =>
    route.fulfill({ status: 200, contentType: 'image/png', body: PNG_1PX }),
  );
  for (const host of ['https://www.youtube-nocookie.com/**', 'https://player.vimeo.com/**']) {
    await context.route(host, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><body>Video player</body>' }),
    );
  }
}

/**
 * /admin, part one: who may open it, the Users tab (the 600 px virtualised list and its
 * search), Verify and Block with their live effects on other people's open screens, and
 * the Activity log that records them. Runs on a server of its own (see admin-helpers.ts).
 */

import {
  countUsers,
  escapeRegExp,
  expect,
  expectToast,
  findUser,
  openAdmin,
  openTab,
  runTag,
  searchUsers,
  setEmailVerified,
  signUpAll,
  test,
  userFlags,
  userRow,
  userRows,
  withDb,
} from './admin-helpers.ts';
import { submitSignIn } from './auth-helpers.ts';
import { bubble, chatRow, notSent, openChat, send } from './chat-helpers.ts';
import { expectReadable } from './contrast.ts';
import { makeUser } from './fixtures.ts';

test.describe('access', () => {
  test('a regular user and the unverified admin e-mail go to /home; the verified admin signs in to /admin', async ({
    world,
    server,
    admin,
    page,
  }) => {
    const regular = await world.person('reg');
    await regular.page.goto('/admin');
    await expect(regular.page).toHaveURL(/\/home$/);
    await expect(regular.page.getByRole('heading', { name: 'Admin Dashboard' })).toHaveCount(0);

    // admin@example.com before its e-mail is verified: no admin power yet.
    setEmailVerified(server, admin.id, false);
    try {
      const unverified = await world.signIn(admin.user, admin.id);
      await unverified.page.goto('/admin');
      await expect(unverified.page).toHaveURL(/\/home$/);
      await expect(unverified.page.getByRole('heading', { name: 'Admin Dashboard' })).toHaveCount(0);
      const status = await unverified.page.evaluate(async () => (await fetch('/api/admin/stats')).status);
      expect(status).toBe(403);
    } finally {
      setEmailVerified(server, admin.id, true);
    }

    // Verified: the sign-in form lands on /admin.
    const total = countUsers(server);
    await page.goto(`${server.baseURL}/signin`);
    await submitSignIn(page, admin.user.email, admin.user.password);
    await expectToast(page, 'Welcome Back!', 'Successfully signed in');
    await expect(page).toHaveURL(`${server.baseURL}/admin`);
    await expect(page.getByRole('heading', { level: 1, name: 'Admin Dashboard' })).toBeVisible();
    const card = page.getByRole('region', { name: 'Total Users' });
    await expect(card.getByTestId('total-users')).toHaveText(total.toLocaleString('en-US'));
    await expect(card).toContainText(`Signed in as ${admin.user.email}`);
    await expect(page.getByRole('tab')).toHaveText(['Users', 'Notifications', 'Settings', 'Activity']);
    await expect(page.getByRole('tab', { name: 'Users' })).toHaveAttribute('aria-selected', 'true');
  });
});

test.describe('users tab', () => {
  test('a 600 px virtualised list: 150 more users load as it scrolls to the bottom', async ({
    server,
    adminPerson,
  }) => {
    test.slow();
    const { page } = adminPerson;
    const tag = runTag();
    const users = Array.from({ length: 150 }, (_, i) =>
      makeUser('v', {
        username: `zv${tag}_${String(i).padStart(3, '0')}`,
        email: `zv${tag}_${String(i).padStart(3, '0')}@example.com`,
      }),
    );
    await signUpAll(server.baseURL, users);
    const total = countUsers(server);
    expect(total).toBeGreaterThan(150);
    // The list is ordered by handle; the last one is far below the first page (100 users).
    const last = withDb(server.dbFile, (db) =>
      db.prepare('SELECT username FROM users ORDER BY username_lower DESC LIMIT 1').get(),
    ) as { username: string };

    const pages: string[] = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.pathname === '/api/admin/users' && url.searchParams.has('after')) pages.push(url.search);
    });
    await openAdmin(page);
    await expect(page.getByTestId('total-users')).toHaveText(total.toLocaleString('en-US'));
    await expect(page.getByText(`${total.toLocaleString('en-US')} users`, { exact: true })).toBeVisible();
    const box = page.getByTestId('admin-users-scroll');
    await expect(box).toHaveCSS('height', '600px');
    await expect(box).toHaveCSS('overflow-y', 'auto');
    await expect(userRows(page).first()).toBeVisible();
    // Only what is near the view is in the DOM.
    const rendered = await userRows(page).count();
    expect(rendered).toBeGreaterThan(5);
    expect(rendered).toBeLessThan(60);
    await expect(userRow(page, last.username)).toHaveCount(0);
    expect(pages, 'only the first page is fetched before scrolling').toEqual([]);
    // The rows sit inside the box.
    const boxRect = await box.boundingBox();
    const firstRect = await userRows(page).first().boundingBox();
    expect(boxRect && firstRect && firstRect.y >= boxRect.y && firstRect.y < boxRect.y + 600).toBe(true);

    // Scrolled to the bottom (again as more pages arrive), the last user shows.
    await expect
      .poll(
        async () => {
          await box.evaluate((el) => el.scrollTo(0, el.scrollHeight));
          return userRow(page, last.username).isVisible();
        },
        { timeout: 20_000 },
      )
      .toBe(true);
    // Further pages were fetched on the way (100 users a page).
    expect(pages.length).toBeGreaterThanOrEqual(Math.ceil(total / 100) - 1);
    // Still only a window of rows; the first of the new users has left the DOM.
    expect(await userRows(page).count()).toBeLessThan(60);
    await expect(userRow(page, users[0]?.username ?? '')).toHaveCount(0);
  });

  test('search by handle substring and by e-mail in any case; No users found', async ({ server, adminPerson }) => {
    const { page } = adminPerson;
    const tag = runTag();
    const [a, b, c] = await signUpAll(server.baseURL, [
      makeUser('s', { username: `sr${tag}_ann`, email: `ann.${tag}@mail.example.com` }),
      makeUser('s', { username: `sr${tag}_ben`, email: `ben.${tag}@mail.example.com` }),
      makeUser('s', { username: `other${tag}`, email: `carla.${tag}@elsewhere.example.com` }),
    ]);
    if (!a || !b || !c) throw new Error('users');
    await openAdmin(page);

    // A part of the handle: both sr… users, not the third.
    await searchUsers(page, `${tag}_`);
    await expect(userRows(page)).toHaveCount(2);
    await expect(userRow(page, a.user.username)).toBeVisible();
    await expect(userRow(page, b.user.username)).toBeVisible();
    await expect(page.getByText('2 users found', { exact: true })).toBeVisible();
    // Ordered by handle, with the e-mail shown.
    await expect(userRows(page).nth(0)).toContainText(a.user.email);
    await expect(userRows(page).nth(1)).toContainText(b.user.email);

    // A handle in capitals.
    await searchUsers(page, `OTHER${tag.toUpperCase()}`);
    await expect(userRows(page)).toHaveCount(1);
    await expect(userRow(page, c.user.username)).toBeVisible();

    // Part of an e-mail only (not in any handle), in another case.
    await searchUsers(page, `BEN.${tag.toUpperCase()}@MAIL`);
    await expect(userRows(page)).toHaveCount(1);
    await expect(userRow(page, b.user.username)).toBeVisible();
    await expect(page.getByText('1 user found', { exact: true })).toBeVisible();
    await searchUsers(page, `@elsewhere.example.com`);
    await expect(userRow(page, c.user.username)).toBeVisible();

    await searchUsers(page, `nobody_${tag}`);
    await expect(userRows(page)).toHaveCount(0);
    await expect(page.getByText('No users found', { exact: true })).toBeVisible();
    await expect(page.getByText('0 users found', { exact: true })).toBeVisible();

    // Cleared: everyone again.
    await searchUsers(page, '');
    await expect(page.getByText(`${countUsers(server).toLocaleString('en-US')} users`, { exact: true })).toBeVisible();
  });
});

test.describe('verify', () => {
  test('Verify shows the badge live in contacts, the chat header and the chat list; Verified removes it', async ({
    world,
    adminPerson,
    server,
  }) => {
    const [carol, alice, bob] = await Promise.all([world.person('carol'), world.person('alice'), world.person('bob')]);
    const admin = adminPerson.page;

    // Alice has a chat with Carol open, and /home in another tab.
    await openChat(alice.page, carol);
    await send(alice.page, `Hello Carol ${runTag()}`);
    const aliceHome = await alice.context.newPage();
    await aliceHome.goto('/home');
    const aliceRow = chatRow(aliceHome, carol.handle);
    await expect(aliceRow).toBeVisible();
    const header = alice.page.getByRole('heading', { level: 1, name: carol.handle });

    // Bob has /contacts open, searching for Carol.
    await bob.page.goto('/contacts');
    await bob.page.getByRole('searchbox', { name: 'Search by username' }).fill(carol.user.username);
    const bobRow = bob.page
      .getByRole('list', { name: 'Users' })
      .getByRole('listitem')
      .filter({ hasText: carol.handle });
    await expect(bobRow).toBeVisible();

    const badges = [
      bobRow.getByRole('img', { name: 'Verified', exact: true }),
      header.getByRole('img', { name: 'Verified', exact: true }),
      aliceRow.getByRole('img', { name: 'Verified', exact: true }),
    ];
    for (const badge of badges) await expect(badge).toHaveCount(0);

    const row = await findUser(admin, carol.user.username);
    await row.getByRole('button', { name: `Verify ${carol.handle}`, exact: true }).click();
    await expectToast(admin, 'User Verified', undefined, 'success');
    const verified = row.getByRole('button', { name: `Verified ${carol.handle}`, exact: true });
    await expect(verified).toHaveText('Verified');
    await expect(verified).toHaveAttribute('aria-pressed', 'true');
    await expect(row.getByRole('img', { name: 'Verified', exact: true })).toBeVisible();
    expect(userFlags(server, carol.id).verified).toBe(1);

    // Live, on every screen, without a reload.
    for (const badge of badges) await expect(badge).toBeVisible();

    await verified.click();
    await expectToast(admin, 'Verification Removed', undefined, 'success');
    const verify = row.getByRole('button', { name: `Verify ${carol.handle}`, exact: true });
    await expect(verify).toHaveText('Verify');
    await expect(verify).toHaveAttribute('aria-pressed', 'false');
    for (const badge of badges) await expect(badge).toHaveCount(0);
    expect(userFlags(server, carol.id).verified).toBe(0);
  });
});

test.describe('block', () => {
  test('a blocked user is sent to /blocked live, cannot sign in or be written to; Unblock lets them back', async ({
    world,
    adminPerson,
    server,
  }) => {
    const [carol, bob] = await Promise.all([world.person('carol'), world.person('bob')]);
    const admin = adminPerson.page;

    // Carol and Bob in their chat.
    await openChat(carol.page, bob);
    await openChat(bob.page, carol);
    const hello = `Hi Bob ${runTag()}`;
    await send(carol.page, hello);
    await expect(bob.page.locator('[data-message-id]').filter({ hasText: hello })).toBeVisible();

    const row = await findUser(admin, carol.user.username);
    await row.getByRole('button', { name: `Block ${carol.handle}`, exact: true }).click();
    await expectToast(admin, 'User Blocked', undefined, 'success');
    await expect(row.getByText('Blocked', { exact: true })).toBeVisible();
    await expectReadable(admin, ['light', 'dark']);
    const unblock = row.getByRole('button', { name: `Unblock ${carol.handle}`, exact: true });
    await expect(unblock).toHaveText('Unblock');
    await expect(unblock).toHaveAttribute('aria-pressed', 'true');
    expect(userFlags(server, carol.id).blocked).toBe(1);

    // Carol's open chat gives way to /blocked by itself.
    await expect(carol.page).toHaveURL(/\/blocked$/);
    await expect(carol.page.getByRole('heading', { name: 'Account Blocked' })).toBeVisible();

    // Bob's message to her is refused and not delivered.
    const refused = `Are you there? ${runTag()}`;
    await send(bob.page, refused);
    await expectToast(bob.page, 'Message Not Sent', 'This account is not available', 'error');
    // It stays in Bob's conversation, marked as not sent.
    await expect(notSent(bubble(bob.page, refused))).toBeVisible();
    // Found by its id: what the server stores of a text is sealed.
    const refusedId = await bubble(bob.page, refused).first().getAttribute('data-message-id');
    const stored = withDb(server.dbFile, (db) =>
      db.prepare('SELECT count(*) AS n FROM messages WHERE id = ?').get(refusedId),
    ) as { n: number };
    expect(stored.n).toBe(0);

    // Sign Out, then signing in again only leads back to /blocked.
    await carol.page.getByRole('button', { name: 'Sign Out' }).click();
    await expect(carol.page).toHaveURL(/\/signin$/);
    await submitSignIn(carol.page, carol.user.email, carol.user.password);
    await expect(carol.page).toHaveURL(/\/blocked$/);
    await expect(carol.page.getByRole('heading', { name: 'Account Blocked' })).toBeVisible();

    await unblock.click();
    await expectToast(admin, 'User Unblocked', undefined, 'success');
    await expect(row.getByText('Blocked', { exact: true })).toHaveCount(0);
    await expect(row.getByRole('button', { name: `Block ${carol.handle}`, exact: true })).toHaveText('Block');
    expect(userFlags(server, carol.id).blocked).toBe(0);

    await carol.page.getByRole('button', { name: 'Sign Out' }).click();
    await expect(carol.page).toHaveURL(/\/signin$/);
    await submitSignIn(carol.page, carol.user.email, carol.user.password);
    await expectToast(carol.page, 'Welcome Back!', 'Successfully signed in');
    await expect(carol.page).toHaveURL(/\/home$/);
    await expect(chatRow(carol.page, bob.handle)).toBeVisible();
    // And Bob can write to her again.
    const back = `Welcome back ${runTag()}`;
    await send(bob.page, back);
    await expect(chatRow(carol.page, bob.handle)).toContainText(back);
  });

  test("the admin's own row says You: Block is disabled, and so is Verified once verified", async ({
    admin,
    adminPerson,
    server,
  }) => {
    const page = adminPerson.page;
    const handle = `@${admin.user.username}`;
    const row = await findUser(page, admin.user.username);
    await expect(row.getByText('You', { exact: true })).toBeVisible();
    const block = row.getByRole('button', { name: `Block ${handle}`, exact: true });
    await expect(block).toBeDisabled();
    await expect(block).toHaveAttribute('title', 'You cannot block your own account');
    // The server refuses it too.
    const res = await page.evaluate(async (id) => {
      const r = await fetch(`/api/admin/users/${id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ blocked: true }),
      });
      return { status: r.status, body: await r.json() };
    }, admin.id);
    expect(res).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    expect(userFlags(server, admin.id).blocked).toBe(0);

    // The admin may verify their own account, but not take the badge away again.
    try {
      await row.getByRole('button', { name: `Verify ${handle}`, exact: true }).click();
      await expectToast(page, 'User Verified');
      const verified = row.getByRole('button', { name: `Verified ${handle}`, exact: true });
      await expect(verified).toBeDisabled();
      await expect(verified).toHaveAttribute('title', 'You cannot remove your own verification');
      await expect(block).toBeDisabled();
    } finally {
      withDb(server.dbFile, (db) => db.prepare('UPDATE users SET verified = 0 WHERE id = ?').run(admin.id));
    }
  });
});

test.describe('activity', () => {
  test('the Activity tab lists what the admin did, newest first, naming the admin and the target', async ({
    world,
    admin,
    adminPerson,
  }) => {
    const dave = await world.person('dave');
    const page = adminPerson.page;
    const row = await findUser(page, dave.user.username);
    await row.getByRole('button', { name: `Verify ${dave.handle}`, exact: true }).click();
    await expectToast(page, 'User Verified');
    await row.getByRole('button', { name: `Block ${dave.handle}`, exact: true }).click();
    await expectToast(page, 'User Blocked');
    await row.getByRole('button', { name: `Unblock ${dave.handle}`, exact: true }).click();
    await expectToast(page, 'User Unblocked');

    await openTab(page, 'Activity');
    await expect(page.getByRole('heading', { name: 'Activity Log' })).toBeVisible();
    const entries = page.getByTestId('audit-entry');
    const mine = `@${admin.user.username}`;
    await expect(entries.nth(0)).toContainText(`${mine} Unblocked ${dave.handle}`);
    // Blocking ended Dave's sessions (the one of his sign-up and the one his context signed in with).
    await expect(entries.nth(1)).toHaveText(
      new RegExp(`^${escapeRegExp(`${mine} Blocked ${dave.handle}`)} \\(\\d+ sessions? ended\\)`),
    );
    await expect(entries.nth(2)).toContainText(`${mine} Verified ${dave.handle}`);
    for (let i = 0; i < 3; i++) await expect(entries.nth(i).locator('time')).toHaveText(/\d{4}, \d{1,2}:\d{2}/);
  });
});

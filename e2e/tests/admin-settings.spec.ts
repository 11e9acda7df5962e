/**
 * /admin, part three: the Settings tab's help link (live on users' Settings), what a
 * regular user gets when they call the admin API or send admin-like frames on the
 * WebSocket themselves (refusals that change nothing), and screenshots of every tab.
 */
import { PROTOCOL_VERSION } from '../../packages/protocol/src/constants.ts';
import {
  type BroadcastRow,
  broadcastForm,
  broadcastRows,
  clearBroadcasts,
  clearHelpLink,
  closeToasts,
  expect,
  expectToast,
  findUser,
  helpLinkOf,
  openAdmin,
  openTab,
  type PrivateServer,
  runTag,
  searchUsers,
  sendBroadcast,
  sentItems,
  settingsRow,
  signUpAll,
  test,
  userFlags,
  userRows,
  withDb,
} from './admin-helpers.ts';
import { shotSizes } from './chat-helpers.ts';
import { makeUser } from './fixtures.ts';

test('the help link: a javascript: link is refused; a saved link shows on Settings live; cleared, Coming Soon is back', async ({
  world,
  admin,
  server,
}) => {
  clearHelpLink(server);
  try {
    const user = await world.person('helpme');
    await user.page.goto('/settings');
    const help = settingsRow(user.page, 'Help');
    await expect(help).toContainText('Coming Soon');
    await expect(user.page.getByRole('link', { name: /Help/ })).toHaveCount(0);

    const { page } = await world.signIn(admin.user, admin.id);
    await openAdmin(page);
    await openTab(page, 'Settings');
    const field = page.getByRole('textbox', { name: 'Help Page Link' });
    const update = page.getByRole('button', { name: 'Update Help Link', exact: true });
    await expect(field).toHaveValue('');
    await expect(page.getByText("No link set: users see 'Coming Soon'.")).toBeVisible();

    await field.fill('javascript:alert(1)');
    await update.click();
    await expect(field).toHaveAccessibleDescription('Help link must start with http:// or https://');
    await expect(field).toBeFocused();
    expect(helpLinkOf(server)).toBeNull();
    await expect(help).toContainText('Coming Soon');

    const link = `https://help.example.com/faq-${runTag()}`;
    await field.fill(link);
    await expect(field).toHaveAccessibleDescription('An http:// or https:// address');
    await update.click();
    await expectToast(page, 'Help Link Updated', undefined, 'success');
    await expect(page.getByRole('link', { name: 'Open current link' })).toHaveAttribute('href', link);
    expect(helpLinkOf(server)).toBe(link);

    // Live on the user's open Settings: Help is now a link to it.
    const helpLink = user.page.getByRole('link', { name: /Help/ });
    await expect(helpLink).toHaveAttribute('href', link);
    await expect(helpLink).toHaveAttribute('target', '_blank');
    await expect(help).not.toContainText('Coming Soon');

    await closeToasts(page);
    await field.fill('');
    await update.click();
    await expectToast(page, 'Help Link Updated', undefined, 'success');
    await expect(page.getByText("No link set: users see 'Coming Soon'.")).toBeVisible();
    expect(helpLinkOf(server)).toBeNull();
    await expect(help).toContainText('Coming Soon');
    await expect(user.page.getByRole('link', { name: /Help/ })).toHaveCount(0);
  } finally {
    clearHelpLink(server);
  }
});

test.describe("a regular user's own attempts", () => {
  /** A broadcast and a help link to aim at, and what the tests compare afterwards. */
  function stage(server: PrivateServer) {
    const id = `raw${runTag()}`;
    withDb(server.dbFile, (db) => {
      db.prepare(
        'INSERT INTO notifications(id, message, video_url, image_url, timestamp, from_id) VALUES (?, ?, NULL, NULL, ?, ?)',
      ).run(id, `The real announcement ${id}`, Date.now(), 'admin');
      db.prepare(
        "INSERT INTO settings(key, value) VALUES('helpLink', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      ).run('https://help.example.com/real');
    });
    const snapshot = () => ({
      broadcasts: broadcastRows(server),
      helpLink: helpLinkOf(server),
      audit: withDb(server.dbFile, (db) => db.prepare('SELECT count(*) AS n FROM audit_log').get()),
    });
    return { id, snapshot };
  }

  test.afterEach(({ server }) => {
    clearBroadcasts(server);
    clearHelpLink(server);
  });

  test('every admin route answers 403 forbidden, and nothing changes', async ({ world, server }) => {
    const [mallory, victim] = await Promise.all([world.person('mallory'), world.person('victim')]);
    await mallory.page.goto('/home');
    await expect(mallory.page.getByRole('heading', { level: 1 })).toBeVisible();
    const { id, snapshot } = stage(server);
    const before = snapshot();
    expect((before.broadcasts as BroadcastRow[]).length).toBe(1);

    const calls: [string, string, unknown?][] = [
      ['GET', '/api/admin/stats'],
      ['GET', '/api/admin/users'],
      ['GET', '/api/admin/users?query=victim'],
      ['PATCH', `/api/admin/users/${victim.id}`, { blocked: true }],
      ['PATCH', `/api/admin/users/${mallory.id}`, { verified: true }],
      ['GET', '/api/admin/notifications'],
      ['POST', '/api/admin/notifications', { message: 'Free prizes for everyone' }],
      ['PUT', `/api/admin/notifications/${id}`, { message: 'Hacked' }],
      ['DELETE', `/api/admin/notifications/${id}`],
      ['PUT', '/api/admin/settings', { helpLink: 'https://evil.example.com' }],
      ['GET', '/api/admin/audit'],
    ];
    const results = await mallory.page.evaluate(
      (calls) =>
        Promise.all(
          calls.map(async ([method, url, body]) => {
            const r = await fetch(url, {
              method,
              headers: body === undefined ? {} : { 'content-type': 'application/json' },
              body: body === undefined ? undefined : JSON.stringify(body),
            });
            const json = await r.json().catch(() => null);
            return { call: `${method} ${url}`, status: r.status, error: json?.error };
          }),
        ),
      calls,
    );
    expect(results).toHaveLength(calls.length);
    for (const r of results) expect(r, r.call).toEqual({ call: r.call, status: 403, error: 'forbidden' });

    // Nothing changed.
    expect(userFlags(server, victim.id)).toEqual({ verified: 0, blocked: 0 });
    expect(userFlags(server, mallory.id)).toEqual({ verified: 0, blocked: 0 });
    expect(snapshot()).toEqual(before);
    // The victim is still signed in and welcome.
    await victim.page.goto('/home');
    await expect(victim.page).toHaveURL(/\/home$/);
  });

  test('admin-like WebSocket frames are invalid frames, and nothing changes', async ({ world, server }) => {
    const [mallory, victim] = await Promise.all([world.person('mallory'), world.person('victim')]);
    await mallory.page.goto('/home');
    await expect(mallory.page.getByRole('heading', { level: 1 })).toBeVisible();
    const { id, snapshot } = stage(server);
    const before = snapshot();

    const frames = [
      { t: 'block', id: '1', userId: victim.id },
      { t: 'broadcast', id: '2', message: 'x' },
      { t: 'verify', id: '3', userId: mallory.id },
      { t: 'adminUsers', id: '4', query: '' },
      { t: 'setFlags', id: '5', userId: victim.id, blocked: true },
      { t: 'helpLink', id: '6', helpLink: 'https://evil.example.com' },
      { t: 'deleteNotification', id: '7', notificationId: id },
      { t: 'notifications', id: '8', message: 'x' },
    ];
    const replies = await mallory.page.evaluate(
      ({ frames, v }) =>
        new Promise<{ t: string; id?: string | null; code?: string }[]>((resolve, reject) => {
          const got: { t: string; id?: string | null; code?: string }[] = [];
          const ws = new WebSocket(`ws://${location.host}/ws`);
          const timer = setTimeout(() => reject(new Error(`no answer to every frame: ${JSON.stringify(got)}`)), 10_000);
          ws.onopen = () => ws.send(JSON.stringify({ t: 'hello', v, lastSeq: null }));
          ws.onclose = (e) => reject(new Error(`closed ${e.code} ${e.reason}: ${JSON.stringify(got)}`));
          ws.onmessage = (e) => {
            const frame = JSON.parse(String(e.data));
            got.push(frame);
            if (frame.t === 'welcome') for (const f of frames) ws.send(JSON.stringify(f));
            const answered = got.filter((g) => g.t === 'error' || g.t === 'result');
            if (answered.length === frames.length) {
              clearTimeout(timer);
              ws.onclose = null;
              ws.close();
              resolve(got);
            }
          };
        }),
      { frames, v: PROTOCOL_VERSION },
    );
    const answers = replies.filter((f) => f.t === 'error' || f.t === 'result');
    expect(answers.map((f) => f.id)).toEqual(frames.map((f) => f.id));
    for (const a of answers) expect(a).toMatchObject({ t: 'error', code: 'invalid_frame' });

    expect(userFlags(server, victim.id)).toEqual({ verified: 0, blocked: 0 });
    expect(userFlags(server, mallory.id)).toEqual({ verified: 0, blocked: 0 });
    expect(snapshot()).toEqual(before);
  });
});

test('screenshots of every tab at 1280 and 390 px', async ({ adminPerson, server }) => {
  test.slow();
  clearBroadcasts(server);
  clearHelpLink(server);
  try {
    const page = adminPerson.page;
    const tag = runTag();
    const people = await signUpAll(
      server.baseURL,
      ['amara', 'bruno', 'chen', 'dana', 'emil'].map((n) =>
        makeUser(n, {
          username: `${n}_${tag}`,
          email: `${n}.${tag}@example.com`,
          name: `${n[0]?.toUpperCase()}${n.slice(1)} Shot`,
        }),
      ),
    );
    // Opened again, so Total Users counts them.
    await openAdmin(page);
    await searchUsers(page, tag);
    await expect(userRows(page)).toHaveCount(people.length);
    for (const [i, action] of [
      [0, 'Verify'],
      [2, 'Verify'],
      [3, 'Block'],
    ] as const) {
      const p = people[i];
      if (!p) throw new Error('people');
      const row = await findUser(page, p.user.username);
      await row.getByRole('button', { name: `${action} ${p.handle}`, exact: true }).click();
      await expect(
        row.getByRole('button', { name: `${action === 'Verify' ? 'Verified' : 'Unblock'} ${p.handle}` }),
      ).toBeVisible();
    }
    await searchUsers(page, tag);
    await expect(userRows(page)).toHaveCount(people.length);
    await page.mouse.move(0, 0);
    await shotSizes(page, 'admin-users');

    await openTab(page, 'Notifications');
    await sendBroadcast(page, {
      message: 'Welcome to Parley! Our new group chats are rolling out this week.',
      videoUrl: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
    });
    await sendBroadcast(page, {
      message: 'Scheduled maintenance tonight from 10 PM to 11 PM UTC. Messages sent meanwhile are delivered after.',
      imageUrl: 'https://i.example.com/maintenance.png',
    });
    await expect(sentItems(page)).toHaveCount(2);
    await shotSizes(page, 'admin-notifications');
    await sentItems(page).nth(1).getByRole('button', { name: 'Edit notification' }).click();
    await expect(broadcastForm(page).update).toBeVisible();
    await shotSizes(page, 'admin-notifications-edit');
    await broadcastForm(page).cancel.click();

    await openTab(page, 'Settings');
    await page.getByRole('textbox', { name: 'Help Page Link' }).fill('https://help.example.com');
    await page.getByRole('button', { name: 'Update Help Link', exact: true }).click();
    await expectToast(page, 'Help Link Updated');
    await shotSizes(page, 'admin-settings');

    await openTab(page, 'Activity');
    await expect(page.getByTestId('audit-entry').first()).toContainText('Set help link');
    await shotSizes(page, 'admin-activity');
  } finally {
    clearBroadcasts(server);
    clearHelpLink(server);
  }
});

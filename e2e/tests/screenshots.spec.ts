/**
 * Every screen at a desktop and a phone size, in the light and the dark scheme, saved as
 * e2e/screenshots/screen-<name>-<scheme>-<width>.png for people to look at; on the phone no
 * screen may scroll sideways. One signed-in user per test goes through all its screens:
 * first with no chats, then with a PIN and a conversation (at 1280 the two panes), and the
 * administrator's tabs with a broadcast as a user sees it.
 */
import type { Page } from '@playwright/test';
import { test as adminTest, deleteBroadcastsMatching, openTab, routeMedia, sendBroadcast } from './admin-helpers.ts';
import { gate, setPin } from './archive-lock-helpers.ts';
import { bubble, chatRow, expect, openChat, type Person, runTag, send, test } from './chat-helpers.ts';
import { heading, loaded, SCHEMES, type Screen, SIGNED_IN_EMPTY, SIGNED_OUT, shootAll } from './screenshot-screens.ts';

const PICTURE =
  '<svg xmlns="http://www.w3.org/2000/svg" width="640" height="320"><defs><linearGradient id="g" x2="1" y2="1">' +
  '<stop offset="0" stop-color="#0ea5e9"/><stop offset="1" stop-color="#7c3aed"/></linearGradient></defs>' +
  '<rect width="640" height="320" fill="url(#g)"/></svg>';

/** The screens of Alice once Bob has written to her and she has answered (and she has a PIN). */
function withChat(bob: Person): Screen[] {
  const conversation = async (page: Page) => {
    await expect(heading(page, bob.handle)).toBeVisible();
    await expect(bubble(page, 'Yes please, 8 works for me')).toBeInViewport();
  };
  return [
    {
      name: 'locked',
      path: '/locked',
      settle: async (page) => {
        await loaded('Locked')(page);
        await expect(gate(page).input).toBeVisible();
      },
    },
    {
      // At 1280 beside 'Select a chat'.
      name: 'home-chats',
      path: '/home',
      settle: async (page) => {
        await expect(chatRow(page, bob.handle)).toContainText('Yes please, 8 works for me');
        if ((page.viewportSize()?.width ?? 0) >= 1024) {
          await expect(page.getByRole('heading', { name: 'Select a chat' })).toBeVisible();
        }
      },
    },
    { name: 'chat', path: `/chat/${bob.id}`, settle: conversation },
    {
      name: 'chat-settings',
      path: `/chat/${bob.id}`,
      widths: [1280],
      settle: async (page) => {
        await conversation(page);
        await page.getByRole('link', { name: 'Settings' }).click();
        await expect(heading(page, 'Settings')).toBeVisible();
        await expect(bubble(page, 'Yes please, 8 works for me')).toBeVisible();
      },
    },
  ];
}

for (const scheme of SCHEMES) {
  test.describe(scheme, () => {
    test('signed out: every screen', async ({ page }) => {
      test.setTimeout(180_000);
      await shootAll(page, scheme, SIGNED_OUT);
    });

    test('signed in: every screen, without chats and with one', async ({ people }) => {
      test.setTimeout(300_000);
      const [alice, bob] = await Promise.all([people.person('shot'), people.person('bob')]);
      if (!alice || !bob) throw new Error('people');
      await shootAll(alice.page, scheme, SIGNED_IN_EMPTY);

      await setPin(alice.page);
      await openChat(bob.page, alice);
      await send(bob.page, 'Hey Alice! Dinner tonight?');
      await openChat(alice.page, bob);
      await expect(bubble(alice.page, 'Hey Alice! Dinner tonight?')).toBeVisible();
      await send(alice.page, 'Yes please, 8 works for me');
      await expect(bubble(bob.page, 'Yes please, 8 works for me')).toBeVisible();
      await shootAll(alice.page, scheme, withChat(bob));
    });
  });
}

adminTest(
  'the administrator: every tab of /admin, and a broadcast on /notifications',
  async ({ adminPerson, world, server }) => {
    adminTest.setTimeout(300_000);
    const tag = runTag();
    const reader = await world.person('reader');
    await routeMedia(reader.context);
    await routeMedia(adminPerson.context);
    // A picture of a real size (routeMedia's is one pixel), routed last so it answers first.
    await reader.context.route('https://i.example.com/shot-*.svg', (route) =>
      route.fulfill({ status: 200, contentType: 'image/svg+xml', body: PICTURE }),
    );
    try {
      await openTab(adminPerson.page, 'Notifications');
      await sendBroadcast(adminPerson.page, {
        message: `Maintenance tonight from 22:00 to 23:00 ${tag}`,
        imageUrl: `https://i.example.com/shot-${tag}.svg`,
      });
      const tab = (name: 'Users' | 'Notifications' | 'Settings' | 'Activity'): Screen => ({
        name: `admin-${name.toLowerCase()}`,
        path: '/admin',
        settle: async (page) => {
          await expect(heading(page, 'Admin Dashboard')).toBeVisible();
          await expect(page.getByTestId('total-users')).toBeVisible();
          await openTab(page, name);
          await expect(page.getByLabel('Loading', { exact: true })).toHaveCount(0);
        },
      });
      const broadcast: Screen = {
        name: 'notifications-broadcast',
        path: '/notifications',
        settle: async (page) => {
          await loaded('Notifications')(page);
          await expect(page.getByRole('img', { name: 'Image attached to the notification' })).toBeVisible();
        },
      };
      for (const scheme of SCHEMES) {
        await shootAll(adminPerson.page, scheme, [
          tab('Users'),
          tab('Notifications'),
          tab('Settings'),
          tab('Activity'),
        ]);
        await shootAll(reader.page, scheme, [broadcast]);
      }
    } finally {
      deleteBroadcastsMatching(server, tag);
    }
  },
);

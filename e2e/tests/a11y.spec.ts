/**
 * Accessibility: axe-core (WCAG 2.0/2.1 A and AA, and best practices) finds nothing, and
 * no screen scrolls sideways on a phone, on any screen of the spec, signed out, signed in as a user (chats, messages both ways,
 * archived and locked chats, a message request) and as the administrator (each tab),
 * at 390 and 1280 px, in the light and the dark theme. One signed-in page per role
 * goes through every screen, so nobody signs up per route.
 */
import type { Page } from '@playwright/test';
import {
  test as adminTest,
  deleteBroadcastsMatching,
  openAdmin,
  openTab,
  routeMedia,
  sendBroadcast,
} from './admin-helpers.ts';
import {
  archivedRow,
  enterLocked,
  gate,
  lockedRow,
  lockFromHome,
  openHome,
  rowMenu,
  setPin,
  write,
} from './archive-lock-helpers.ts';
import { expectToast } from './auth-helpers.ts';
import { axeFindings, expectAccessible, type Screen } from './axe.ts';
import {
  bubble,
  chatRow,
  expect,
  openChat,
  openMessageMenu,
  type Person,
  runTag,
  send,
  setPrivacy,
  test,
} from './chat-helpers.ts';

/** Opens `path` and waits for its top heading (named `heading` when given) and the end of loading. */
function screen(name: string, path: string, heading?: string | RegExp, ready?: (page: Page) => Promise<void>): Screen {
  return {
    name,
    async open(page) {
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1, ...(heading ? { name: heading } : {}) })).toBeVisible();
      await expect(page.getByLabel('Loading', { exact: true })).toHaveCount(0);
      await ready?.(page);
    },
  };
}

// A token of the right shape: the form shows until it is sent.
const RESET_TOKEN = 'a'.repeat(43);

const SIGNED_OUT: Screen[] = [
  screen('/welcome', '/welcome', /^Welcome to/),
  {
    name: '/welcome step 2',
    async open(page) {
      await screen('', '/welcome', /^Welcome to/).open(page);
      await page.getByRole('button', { name: 'Next' }).click();
      await expect(page.getByRole('heading', { level: 1, name: /^Why/ })).toBeVisible();
    },
  },
  screen('/signup', '/signup', 'Create Account'),
  screen('/signin', '/signin', 'Welcome Back'),
  {
    name: '/signin error toast',
    async open(page) {
      await screen('', '/signin', 'Welcome Back').open(page);
      await page.getByRole('button', { name: 'Sign In', exact: true }).click();
      await expectToast(page, 'Sign In Failed', undefined, 'error');
    },
  },
  screen('/forgot-password', '/forgot-password', 'Forgot Password'),
  screen('/reset-password?token', `/reset-password?token=${RESET_TOKEN}`, 'Reset Password', async (page) => {
    await expect(page.getByRole('button', { name: /Reset Password|Save/ })).toBeVisible();
  }),
  screen('/reset-password (no token)', '/reset-password'),
  screen('/verify-email (no token)', '/verify-email'),
  screen('/terms', '/terms', 'Terms of Service'),
  screen('/privacy', '/privacy', 'Privacy Policy'),
  screen('/about', '/about', 'About'),
  screen('/blocked', '/blocked', 'Account Blocked'),
  screen('not found', '/no-such-page', 'Oops! Page not found'),
];

test('the scan finds a problem when there is one', async ({ page }) => {
  await page.goto('/welcome');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await page.evaluate(() => {
    const b = document.createElement('button');
    b.className = 'axe-self-test';
    document.querySelector('main')?.append(b);
  });
  const found = await axeFindings(page, '/welcome');
  expect(found).toEqual([expect.stringMatching(/^\/welcome: button-name \(critical\) at \.axe-self-test: <button/)]);
});

test('signed out: the splash', async ({ page }) => {
  // The splash moves on after 2 s: the clock stands still while it is scanned.
  await page.clock.install();
  await expectAccessible(page, [screen('/', '/')]);
});

test('signed out: every screen', async ({ page }) => {
  test.setTimeout(360_000);
  await expectAccessible(page, SIGNED_OUT);
});

/** Alice's world: a conversation with Bob both ways, Carol's chat archived, Dave's locked, Eve's request. */
async function aliceWithEverything(people: {
  person(prefix: string): Promise<Person>;
}): Promise<{ alice: Person; bob: Person; carol: Person; dave: Person; eve: Person }> {
  const [alice, bob, carol, dave, eve] = await Promise.all(
    ['alice', 'bob', 'carol', 'dave', 'eve'].map((p) => people.person(p)),
  );
  if (!alice || !bob || !carol || !dave || !eve) throw new Error('people');
  await openChat(alice.page, bob);
  await openChat(bob.page, alice);
  await send(bob.page, 'Hey Alice! Dinner tonight?');
  await send(alice.page, 'Yes please, 8 works for me');
  await send(bob.page, 'Great, see you there: https://example.com/table');
  await expect(bubble(alice.page, 'Great, see you there: https://example.com/table')).toBeVisible();
  await write(carol, alice, 'Hi Alice, Carol here');
  await write(dave, alice, 'Hi Alice, Dave here');

  await setPin(alice.page);
  await openHome(alice.page);
  await rowMenu(alice.page, chatRow(alice.page, carol.handle), carol.handle, 'Archive', 'button');
  await lockFromHome(alice.page, dave);

  await setPrivacy(alice.page, { requireRequest: true });
  await openChat(eve.page, alice);
  // A request, not a message: the composer gives way to the pending request (so no `send`).
  await eve.page.getByRole('textbox', { name: 'Message', exact: true }).fill('Hello Alice, may I write to you?');
  await eve.page.getByRole('textbox', { name: 'Message', exact: true }).press('Enter');
  await expect(eve.page.getByRole('region', { name: 'Message request' })).toBeVisible();
  return { alice, bob, carol, dave, eve };
}

/**
 * Alice's screens, in two halves so each fits a test's time and the two run side by side:
 * her chats and conversations, then the screens around them.
 */
test('signed in: the chat screens of a user with chats (list, conversation, menus, archive, locked, a request)', async ({
  people,
}) => {
  test.setTimeout(600_000);
  const { alice, bob, carol, dave, eve } = await aliceWithEverything(people);
  const chat: Screen = {
    name: '/chat/:id',
    async open(page) {
      await openChat(page, bob);
      await expect(bubble(page, 'Yes please, 8 works for me')).toBeVisible();
    },
  };
  await expectAccessible(alice.page, [
    screen('/home', '/home', undefined, async (page) => {
      await expect(chatRow(page, bob.handle)).toBeVisible();
      await expect(page.getByRole('link', { name: /^Locked\b/ })).toBeVisible();
    }),
    {
      name: '/home row menu',
      async open(page) {
        await page.goto('/home');
        await chatRow(page, bob.handle)
          .getByRole('button', { name: `Chat options for ${bob.handle}` })
          .click();
        await expect(page.getByRole('menu', { name: `Chat options for ${bob.handle}` })).toBeVisible();
      },
    },
    chat,
    {
      name: '/chat/:id message menu',
      async open(page) {
        await chat.open(page);
        await openMessageMenu(page, bubble(page, 'Hey Alice! Dinner tonight?'));
      },
    },
    {
      name: '/chat/:id message info',
      async open(page) {
        await chat.open(page);
        const menu = await openMessageMenu(page, bubble(page, 'Yes please, 8 works for me'));
        await menu.getByRole('menuitem', { name: 'Info', exact: true }).click();
        await expect(page.getByRole('dialog', { name: 'Message info' })).toBeVisible();
      },
    },
    screen('/archive', '/archive', 'Archived', async (page) => {
      await expect(archivedRow(page, carol.handle)).toBeVisible();
    }),
    screen('/locked (PIN gate)', '/locked', 'Locked', async (page) => {
      await expect(gate(page).input).toBeVisible();
    }),
    {
      name: '/locked (open)',
      async open(page) {
        await enterLocked(page);
        await expect(lockedRow(page, dave.handle)).toBeVisible();
      },
    },
  ]);
  // Eve's side of the request: the chat waiting for Alice.
  await expectAccessible(eve.page, [
    {
      name: '/chat/:id request pending',
      async open(page) {
        await openChat(page, alice);
        await expect(page.getByRole('region', { name: 'Message request' })).toBeVisible();
      },
    },
  ]);
});

test('signed in: contacts, notifications, settings and their screens; a user without chats', async ({ people }) => {
  test.setTimeout(600_000);
  const { alice, bob } = await aliceWithEverything(people);
  await expectAccessible(alice.page, [
    screen('/contacts', '/contacts', 'Contacts', async (page) => {
      // The shared server holds every test's users: filter so Bob is in the virtual window.
      await page.getByRole('searchbox', { name: 'Search by username' }).fill(bob.user.username);
      await expect(page.getByText(bob.handle, { exact: true })).toBeVisible();
    }),
    screen('/notifications', '/notifications', 'Notifications', async (page) => {
      await expect(page.getByRole('button', { name: 'Accept' })).toBeVisible();
    }),
    screen('/settings', '/settings', 'Settings'),
    screen('/profile', '/profile', 'Profile'),
    screen('/account', '/account', 'Account'),
    {
      name: '/account delete dialog',
      async open(page) {
        await screen('', '/account', 'Account').open(page);
        await page.getByRole('button', { name: 'Delete Account' }).click();
        await expect(page.getByRole('alertdialog').or(page.getByRole('dialog'))).toBeVisible();
      },
    },
    screen('/privacy-settings', '/privacy-settings', 'Privacy Settings'),
    screen('/about', '/about', 'About'),
  ]);
  // A user with no chats at all.
  const empty = await people.person('empty');
  await expectAccessible(empty.page, [
    screen('/home (empty)', '/home', undefined, async (page) => {
      await expect(page.getByText('No conversations yet')).toBeVisible();
    }),
    screen('/home search', '/home', undefined, async (page) => {
      await page.getByRole('button', { name: 'Search' }).click();
      await expect(page.getByPlaceholder('Search by username...')).toBeFocused();
    }),
    screen('/notifications (empty)', '/notifications', 'Notifications', async (page) => {
      await expect(page.getByText('No notifications', { exact: true })).toBeVisible();
    }),
    screen('/archive (empty)', '/archive', 'Archived', async (page) => {
      await expect(page.getByText('No archived conversations')).toBeVisible();
    }),
    screen('/locked (no PIN)', '/locked', 'Locked', async (page) => {
      await expect(page.getByRole('link', { name: 'Set a PIN' })).toBeVisible();
    }),
  ]);
});

adminTest(
  'the administrator: every tab of /admin, and a broadcast with media on /notifications',
  async ({ adminPerson, world, server }) => {
    adminTest.setTimeout(600_000);
    const tag = runTag();
    const reader = await world.person('reader');
    await routeMedia(reader.context);
    await routeMedia(adminPerson.context);
    try {
      await openTab(adminPerson.page, 'Notifications');
      await sendBroadcast(adminPerson.page, {
        message: `Maintenance tonight ${tag}`,
        videoUrl: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
        imageUrl: `https://i.example.com/a11y-${tag}.png`,
      });
      const tab = (name: 'Users' | 'Notifications' | 'Settings' | 'Activity'): Screen => ({
        name: `/admin ${name}`,
        async open(page) {
          await openAdmin(page);
          await openTab(page, name);
          await expect(page.getByLabel('Loading', { exact: true })).toHaveCount(0);
        },
      });
      await expectAccessible(adminPerson.page, [tab('Users'), tab('Notifications'), tab('Settings'), tab('Activity')]);
      await expectAccessible(reader.page, [
        screen('/notifications (broadcast)', '/notifications', 'Notifications', async (page) => {
          await expect(page.getByRole('img', { name: 'Image attached to the notification' })).toBeVisible();
        }),
      ]);
    } finally {
      deleteBroadcastsMatching(server, tag);
    }
  },
);

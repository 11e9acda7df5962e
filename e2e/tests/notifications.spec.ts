/**
 * /notifications: contact requests (live, the bell, Accept and Decline), the requester's
 * info item, admin broadcasts with their image and video (and unsafe URLs that must
 * never become an image, a frame or a link), and the order and times of the list.
 * (Browser notifications: browser-notifications.spec.ts.)
 *
 * Broadcasts reach every user of a server, so these tests run against a server of
 * their own (one per worker; each test removes the broadcasts it wrote).
 */
import type { Locator, Page } from '@playwright/test';
import {
  bubble,
  chatRow,
  escapeRegExp,
  expect,
  openChat,
  type People,
  type Person,
  runTag,
  send,
  shotSizes,
} from './chat-helpers.ts';
import { routeMedia } from './media-routes.ts';
import { sendRequest, setRequireRequest, test } from './private-world.ts';
import { expectNoSidewaysScroll } from './screen-helpers.ts';

/** 'Nov 21, 2026, 3:04 PM' (ICU may put a narrow no-break space before PM). */
const DATE_TIME = /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s[AP]M$/;

/** The bell on /home (its name says how many are unread). */
function bell(page: Page): Locator {
  return page.getByRole('link', { name: /^Notifications/ });
}

function list(page: Page): Locator {
  return page.getByRole('list', { name: 'Notifications' });
}

/** The notification items, top to bottom. */
function items(page: Page): Locator {
  return list(page).getByRole('article');
}

/** The request item from `from`. */
function requestItem(page: Page, from: Person): Locator {
  return items(page).filter({
    has: page.getByRole('heading', { name: new RegExp(`^${escapeRegExp(from.handle)}\\b`) }),
  });
}

/** The item whose text contains `text`. */
function itemWith(page: Page, text: string): Locator {
  return items(page).filter({ hasText: text });
}

/** Bob, with Message Requests on, on /home; Alice a stranger to him. */
async function strangers(world: People): Promise<{ alice: Person; bob: Person }> {
  const alice = await world.person('alice');
  const bob = await world.person('bob');
  await bob.page.goto('/home');
  await setRequireRequest(bob.page, true);
  await expect(bell(bob.page)).toHaveAccessibleName('Notifications');
  return { alice, bob };
}

test('with nothing to show, the page says No notifications', async ({ world }) => {
  const me = await world.person('empty');
  await me.page.goto('/home');
  await expect(bell(me.page)).toHaveAccessibleName('Notifications');
  await bell(me.page).click();
  await expect(me.page).toHaveURL(/\/notifications$/);
  await expect(me.page.getByRole('heading', { level: 1, name: 'Notifications' })).toBeVisible();
  await expect(me.page.getByText('No notifications', { exact: true })).toBeVisible();
  await expect(list(me.page)).toHaveCount(0);
  await shotSizes(me.page, 'notifications-empty');
  await me.page.getByRole('button', { name: 'Back' }).click();
  await expect(me.page).toHaveURL(/\/home$/);
});

test('a first message to a contacts-only user arrives live as a request; Accept opens the chat for both', async ({
  world,
}) => {
  const { alice, bob } = await strangers(world);
  const text = `Hi Bob, Alice from the climbing club ${runTag()}`;
  await sendRequest(alice, bob, text);

  // Live on Bob's /home: the bell counts it.
  await expect(bell(bob.page)).toHaveAccessibleName(/Notifications, 1 unread/);
  await bell(bob.page).click();
  const item = requestItem(bob.page, alice);
  await expect(item).toBeVisible();
  await expect(item).toContainText(text);
  await expect(item.locator('time')).toHaveText(DATE_TIME);
  await expect(item.getByRole('button', { name: 'Accept' })).toBeEnabled();
  await expect(item.getByRole('button', { name: 'Decline' })).toBeEnabled();

  // Opening the page cleared the bell, for good.
  await bob.page.getByRole('button', { name: 'Back' }).click();
  await expect(bell(bob.page)).toHaveAccessibleName('Notifications');
  await bob.page.reload();
  await expect(bell(bob.page)).toHaveAccessibleName('Notifications');
  await expect(chatRow(bob.page, alice.handle)).toHaveCount(0);

  await bell(bob.page).click();
  await requestItem(bob.page, alice).getByRole('button', { name: 'Accept' }).click();
  const toast = bob.page.locator('[data-sonner-toast]').filter({ hasText: 'Request Accepted' });
  await expect(toast).toContainText('You can now message each other');
  await expect(requestItem(bob.page, alice)).toHaveCount(0);
  await expect(bob.page.getByText('No notifications', { exact: true })).toBeVisible();

  // Both have the chat, with the request as its first message.
  await bob.page.getByRole('button', { name: 'Back' }).click();
  await expect(chatRow(bob.page, alice.handle)).toContainText(text);
  await expect(alice.page.getByRole('textbox', { name: 'Message', exact: true })).toBeVisible();
  await expect(bubble(alice.page, text)).toBeVisible();

  // Alice is told, on her bell and on her /notifications.
  await alice.page.goto('/home');
  await expect(chatRow(alice.page, bob.handle)).toContainText(text);
  await expect(bell(alice.page)).toHaveAccessibleName(/Notifications, 1 unread/);
  await bell(alice.page).click();
  const info = itemWith(alice.page, `${bob.handle} accepted your message request. You can now message each other.`);
  await expect(info).toBeVisible();
  await expect(info.locator('time')).toHaveText(DATE_TIME);
  await expect(info.getByRole('button')).toHaveCount(0);

  // And now they write to each other like contacts.
  await openChat(alice.page, bob);
  await send(alice.page, 'Great, see you Saturday');
  await openChat(bob.page, alice);
  await expect(bubble(bob.page, text)).toBeVisible();
  await expect(bubble(bob.page, 'Great, see you Saturday')).toBeVisible();
  await send(bob.page, 'See you!');
  await expect(bubble(alice.page, 'See you!')).toBeVisible();
});

test('a request arriving while /notifications is open is shown and seen at once; Decline removes it and nothing else', async ({
  world,
}) => {
  const { alice, bob } = await strangers(world);
  await bob.page.goto('/notifications');
  await expect(bob.page.getByText('No notifications', { exact: true })).toBeVisible();

  const text = `Can I join your chess club? ${runTag()}`;
  await sendRequest(alice, bob, text);
  const item = requestItem(bob.page, alice);
  await expect(item).toContainText(text);

  await item.getByRole('button', { name: 'Decline' }).click();
  await expect(bob.page.locator('[data-sonner-toast]').filter({ hasText: 'Request Declined' })).toBeVisible();
  await expect(item).toHaveCount(0);
  await expect(bob.page.getByText('No notifications', { exact: true })).toBeVisible();

  // It was seen while the page was open: the bell stays clear; no chat was made.
  await bob.page.getByRole('button', { name: 'Back' }).click();
  await expect(bell(bob.page)).toHaveAccessibleName('Notifications');
  await bob.page.reload();
  await expect(bell(bob.page)).toHaveAccessibleName('Notifications');
  await expect(chatRow(bob.page, alice.handle)).toHaveCount(0);

  // Not contacts: Alice is still a stranger who may only send a request, and she was told nothing.
  await alice.page.reload();
  await expect(alice.page.getByText(/accepts messages from contacts only/)).toBeVisible();
  await expect(bubble(alice.page, text)).toHaveCount(0);
  await alice.page.goto('/notifications');
  await expect(alice.page.getByText('No notifications', { exact: true })).toBeVisible();
});

test('admin broadcasts: message, image, YouTube and Vimeo embeds, other links; newest first with date and time', async ({
  world,
  broadcast,
}) => {
  const me = await world.person('media');
  await routeMedia(me.context);
  const now = Date.now();
  const tag = runTag();
  const youtube = `YouTube broadcast ${tag}`;
  const vimeo = `Vimeo broadcast ${tag}`;
  const other = `Other video host ${tag}`;
  const broken = `Broken image ${tag}`;
  broadcast({
    message: youtube,
    imageUrl: 'https://i.example.com/welcome.png',
    videoUrl: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42',
    timestamp: now - 4 * 3_600_000,
  });
  broadcast({ message: vimeo, videoUrl: 'https://vimeo.com/76979871', timestamp: now - 3 * 3_600_000 });
  broadcast({ message: other, videoUrl: 'https://videos.example.com/watch/123', timestamp: now - 2 * 3_600_000 });
  broadcast({ message: broken, imageUrl: 'https://i.example.com/broken.png', timestamp: now - 3_600_000 });

  await me.page.goto('/home');
  await expect(bell(me.page)).toHaveAccessibleName(/Notifications, 4 unread/);
  await bell(me.page).click();

  // Newest first, each with its date and time.
  await expect(items(me.page)).toHaveCount(4);
  for (const [i, message] of [broken, other, vimeo, youtube].entries()) {
    await expect(items(me.page).nth(i)).toContainText(message);
    await expect(
      items(me.page)
        .nth(i)
        .getByRole('heading', { name: /^Admin Notification/ }),
    ).toBeVisible();
  }
  const times = await items(me.page).locator('time').allTextContents();
  expect(times).toHaveLength(4);
  for (const t of times) expect(t).toMatch(DATE_TIME);
  const expected = [now - 3_600_000, now - 2 * 3_600_000, now - 3 * 3_600_000, now - 4 * 3_600_000].map((ts) =>
    new Date(ts).toLocaleString('en-US', {
      month: 'short',
      day: 'numeric',
      year: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
    }),
  );
  const spaces = (s: string) => s.replace(/\s/g, ' ');
  expect(times.map(spaces)).toEqual(expected.map(spaces));

  // The image (no referrer, lazy) and the YouTube player through the official no-cookie embed, sandboxed.
  const yt = itemWith(me.page, youtube);
  const img = yt.getByRole('img', { name: 'Image attached to the notification' });
  await expect(img).toBeVisible();
  await expect(img).toHaveAttribute('src', 'https://i.example.com/welcome.png');
  await expect(img).toHaveAttribute('referrerpolicy', 'no-referrer');
  await expect(img).toHaveAttribute('loading', 'lazy');
  await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBeGreaterThan(0);
  const ytFrame = yt.locator('iframe');
  await expect(ytFrame).toHaveAttribute('src', 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ');
  await expect(ytFrame).toHaveAttribute('sandbox', 'allow-scripts allow-same-origin allow-presentation');
  await expect(ytFrame).toHaveAttribute('referrerpolicy', 'strict-origin-when-cross-origin');
  await expect(ytFrame).toHaveAttribute('title', /.+/);
  const box = await ytFrame.boundingBox();
  expect(box).not.toBeNull();
  if (box) expect(Math.abs(box.width / box.height - 16 / 9)).toBeLessThan(0.05);

  // Vimeo: its player URL.
  await expect(itemWith(me.page, vimeo).locator('iframe')).toHaveAttribute(
    'src',
    'https://player.vimeo.com/video/76979871',
  );

  // Another host is never a frame: a plain link to it, or (the server drops it) nothing.
  const otherItem = itemWith(me.page, other);
  await expect(otherItem.locator('iframe')).toHaveCount(0);
  const links = otherItem.getByRole('link');
  if ((await links.count()) > 0) {
    await expect(links).toHaveAttribute('href', 'https://videos.example.com/watch/123');
  }

  // An image that does not load leaves no broken-image icon.
  await expect(itemWith(me.page, broken).getByRole('img')).toHaveCount(0);
  await expect(itemWith(me.page, broken)).toContainText(broken);

  // Seen: back on /home the bell is clear.
  await me.page.getByRole('button', { name: 'Back' }).click();
  await expect(bell(me.page)).toHaveAccessibleName('Notifications');
});

test('unsafe URLs in a broadcast become no image, frame or link, and run nothing', async ({ world, broadcast }) => {
  const me = await world.person('xss');
  const dialogs: string[] = [];
  me.page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const tag = runTag();
  const stored = `Stored javascript URLs ${tag}`;
  const injected = `Injected javascript URLs ${tag}`;
  const html = `<img src=x onerror="alert(2)"><script>alert(3)</script> ${tag}`;
  const now = Date.now();
  broadcast({
    message: stored,
    imageUrl: 'javascript:alert(1)',
    videoUrl: 'javascript:alert(1)',
    timestamp: now - 3000,
  });
  broadcast({ message: injected, timestamp: now - 2000 });
  broadcast({ message: html, imageUrl: 'data:image/svg+xml,<svg onload="alert(4)"/>', timestamp: now - 1000 });

  // The server drops such URLs; this page also gets them past the server, to check that
  // the page itself never renders them either.
  let tampered = 0;
  await me.page.routeWebSocket(/\/ws$/, (ws) => {
    const server = ws.connectToServer();
    server.onMessage((message) => {
      if (typeof message !== 'string' || !message.includes(injected)) return ws.send(message);
      const frame = JSON.parse(message);
      for (const n of frame.data?.items ?? []) {
        if (n.message === injected) {
          n.imageUrl = 'javascript:alert(1)';
          n.videoUrl = 'javascript:alert(1)';
          tampered += 1;
        }
      }
      ws.send(JSON.stringify(frame));
    });
  });

  // Anything the page ever puts in the DOM with such a URL is recorded, even if removed again.
  await me.page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __unsafe: string[] }).__unsafe = seen;
    const check = (el: Element) => {
      for (const attr of ['src', 'href', 'srcdoc']) {
        const v = el.getAttribute(attr);
        if (v && /^\s*(javascript|data|vbscript):/i.test(v)) seen.push(`${el.tagName} ${attr}=${v}`);
      }
    };
    new MutationObserver((records) => {
      for (const r of records) {
        if (r.type === 'attributes' && r.target instanceof Element) check(r.target);
        for (const n of r.addedNodes) {
          if (n instanceof Element) {
            check(n);
            for (const el of n.querySelectorAll('*')) check(el);
          }
        }
      }
    }).observe(document, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['src', 'href', 'srcdoc'],
    });
  });

  await me.page.goto('/notifications');
  for (const message of [stored, injected, html]) await expect(itemWith(me.page, message)).toBeVisible();
  // The HTML is text.
  await expect(itemWith(me.page, html).getByText(html, { exact: true })).toBeVisible();
  const main = me.page.getByRole('main');
  await expect(main.locator('img')).toHaveCount(0);
  await expect(main.locator('iframe')).toHaveCount(0);
  await expect(main.locator('script')).toHaveCount(0);
  await expect(main.getByRole('link')).toHaveCount(0);
  await expect(me.page.locator('[src^="javascript:" i], [href^="javascript:" i]')).toHaveCount(0);
  await expect(main.locator('[src^="data:" i]')).toHaveCount(0);
  // Give anything that might run a moment to do so (without a fixed sleep: a round trip to the server).
  await me.page.reload();
  await expect(itemWith(me.page, injected)).toBeVisible();
  expect(tampered).toBeGreaterThanOrEqual(2);
  expect(await me.page.evaluate(() => (window as unknown as { __unsafe: string[] }).__unsafe)).toEqual([]);
  expect(dialogs).toEqual([]);
});

test('screenshots: a request, an info item and an admin broadcast with image and video', async ({
  world,
  broadcast,
}) => {
  const alice = await world.person('alice');
  const bob = await world.person('bob');
  const carol = await world.person('carol');
  await routeMedia(alice.context);

  // Bob takes requests; Alice's request is accepted, so she gets the info item.
  await bob.page.goto('/home');
  await setRequireRequest(bob.page, true);
  await sendRequest(alice, bob, 'Hi Bob!');
  await bob.page.goto('/notifications');
  await requestItem(bob.page, alice).getByRole('button', { name: 'Accept' }).click();
  await expect(requestItem(bob.page, alice)).toHaveCount(0);

  broadcast({
    message: 'Welcome to Parley! Here is a short video about what is new this month, and a picture of the team.',
    imageUrl: 'https://i.example.com/team.png',
    videoUrl: 'https://youtu.be/dQw4w9WgXcQ',
    timestamp: Date.now() - 60_000,
  });

  // Carol writes to Alice, who takes requests too.
  await alice.page.goto('/home');
  await setRequireRequest(alice.page, true);
  await sendRequest(
    carol,
    alice,
    'Hello Alice! We met at the conference last week, I would love to continue our conversation about climbing routes.',
  );

  await alice.page.reload();
  await expect(bell(alice.page)).toHaveAccessibleName(/Notifications, 3 unread/);
  await bell(alice.page).click();
  await expect(items(alice.page)).toHaveCount(3);
  await expect(items(alice.page).nth(0)).toContainText(carol.handle);
  await expect(items(alice.page).nth(1)).toContainText('accepted your message request');
  await expect(items(alice.page).nth(2)).toContainText('Admin Notification');
  const img = items(alice.page).nth(2).getByRole('img');
  await shotSizes(alice.page, 'notifications-list', async () => {
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0)).toBe(true);
    await expect(items(alice.page).nth(2).frameLocator('iframe').getByText('Video player')).toBeVisible();
    await expectNoSidewaysScroll(alice.page);
  });
});

// ---- browser notifications -------------------------------------------------------------

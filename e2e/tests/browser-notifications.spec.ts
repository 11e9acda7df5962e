/**
 * Browser notifications: raised only while the page is hidden, for messages (without the
 * text of a locked chat) and requests, and the offer to enable them. Against a server of
 * the tests' own (private-world.ts).
 */
import type { BrowserContext, Page } from '@playwright/test';
import { chatRow, expect, openChat, send } from './chat-helpers.ts';
import { withDb } from './private-server.ts';
import { sendRequest, setRequireRequest, test } from './private-world.ts';

interface Note {
  title: string;
  body?: string;
}

/**
 * Replaces window.Notification with a recorder (permission granted) and adds
 * window.__setHidden(hidden) to make the page hidden or visible as a background tab is.
 */
async function recordNotifications(context: BrowserContext, permission: NotificationPermission = 'granted') {
  await context.addInitScript((initial: NotificationPermission) => {
    const w = window as unknown as {
      __notes: { title: string; body?: string }[];
      __permissionRequests: number;
      __setHidden: (hidden: boolean) => void;
    };
    w.__notes = [];
    w.__permissionRequests = 0;
    let current: NotificationPermission = initial;
    class RecordingNotification {
      static get permission() {
        return current;
      }
      static requestPermission() {
        w.__permissionRequests += 1;
        current = 'granted';
        return Promise.resolve(current);
      }
      onclick: (() => void) | null = null;
      constructor(title: string, options?: NotificationOptions) {
        w.__notes.push({ title, body: options?.body });
      }
      close() {}
    }
    Object.defineProperty(window, 'Notification', { value: RecordingNotification, configurable: true, writable: true });
    w.__setHidden = (hidden) => {
      Object.defineProperty(document, 'visibilityState', {
        get: () => (hidden ? 'hidden' : 'visible'),
        configurable: true,
      });
      Object.defineProperty(document, 'hidden', { get: () => hidden, configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    };
  }, permission);
}

function notes(page: Page): Promise<Note[]> {
  return page.evaluate(() => (window as unknown as { __notes: Note[] }).__notes);
}

async function setHidden(page: Page, hidden: boolean): Promise<void> {
  await page.evaluate((h) => (window as unknown as { __setHidden: (h: boolean) => void }).__setHidden(h), hidden);
}

/** Counts the notes Web Audio starts (window.__chimeNotes), the sound's two per chime. */
async function countChimes(context: BrowserContext) {
  await context.addInitScript(() => {
    const w = window as unknown as { __chimeNotes: number };
    w.__chimeNotes = 0;
    const start = OscillatorNode.prototype.start;
    OscillatorNode.prototype.start = function (this: OscillatorNode, ...args: [number?]) {
      w.__chimeNotes += 1;
      return start.apply(this, args);
    };
  });
}

function chimeNotes(page: Page): Promise<number> {
  return page.evaluate(() => (window as unknown as { __chimeNotes: number }).__chimeNotes);
}

test.describe('browser notifications', () => {
  test('the sound, once turned on in Settings, chimes for a message only while the page is hidden', async ({
    world,
  }) => {
    const alice = await world.person('alice');
    const bob = await world.person('bob', { permissions: ['notifications'] });
    await recordNotifications(bob.context);
    await countChimes(bob.context);
    await openChat(alice.page, bob);
    await bob.page.goto('/home');
    await expect(bob.page.getByText('No conversations yet')).toBeVisible();

    // Off by default: a hidden page gets the notification but no sound.
    await setHidden(bob.page, true);
    await send(alice.page, 'Quiet one');
    await expect.poll(() => notes(bob.page)).toHaveLength(1);
    expect(await chimeNotes(bob.page)).toBe(0);
    await setHidden(bob.page, false);

    await bob.page.goto('/settings');
    const sound = bob.page.getByRole('switch', { name: 'Sound' });
    await expect(sound).toHaveAttribute('aria-checked', 'false');
    await sound.click();
    await expect(sound).toHaveAttribute('aria-checked', 'true');
    await bob.page.reload();
    await expect(bob.page.getByRole('switch', { name: 'Sound' })).toHaveAttribute('aria-checked', 'true');

    // A visible page: the message arrives (the title counts it), no sound.
    await send(alice.page, 'Visible one');
    await expect(bob.page).toHaveTitle('(2) Parley');
    expect(await chimeNotes(bob.page)).toBe(0);
    await setHidden(bob.page, true);
    await send(alice.page, 'Loud one');
    await expect.poll(() => chimeNotes(bob.page)).toBe(2);
  });

  test('a message raises one only while the page is hidden, with the sender and the text', async ({ world }) => {
    const alice = await world.person('alice');
    const bob = await world.person('bob', { permissions: ['notifications'] });
    await recordNotifications(bob.context);
    await openChat(alice.page, bob);
    await bob.page.goto('/home');

    await send(alice.page, 'Visible hello');
    await expect(chatRow(bob.page, alice.handle)).toContainText('Visible hello');
    expect(await notes(bob.page)).toEqual([]);

    await setHidden(bob.page, true);
    await send(alice.page, 'Are you there?');
    await expect.poll(() => notes(bob.page)).toEqual([{ title: alice.handle, body: 'Are you there?' }]);

    await setHidden(bob.page, false);
    await send(alice.page, 'Back again');
    await expect(chatRow(bob.page, alice.handle)).toContainText('Back again');
    expect(await notes(bob.page)).toHaveLength(1);
  });

  test('a request raises one that names the sender', async ({ world }) => {
    const alice = await world.person('alice');
    const bob = await world.person('bob', { permissions: ['notifications'] });
    await recordNotifications(bob.context);
    await bob.page.goto('/notifications');
    await setRequireRequest(bob.page, true);
    // Loaded, so connected: what comes now comes live.
    await expect(bob.page.getByText('No notifications', { exact: true })).toBeVisible();
    await setHidden(bob.page, true);
    await sendRequest(alice, bob, 'May I write to you?');
    await expect
      .poll(() => notes(bob.page))
      .toEqual([{ title: `${alice.handle} sent you a message request`, body: 'May I write to you?' }]);
  });

  test('a locked chat raises one without the text', async ({ world, server }) => {
    const alice = await world.person('alice');
    const bob = await world.person('bob', { permissions: ['notifications'] });
    await recordNotifications(bob.context);
    await openChat(alice.page, bob);
    await send(alice.page, 'Before the lock');
    await bob.page.goto('/home');
    await expect(chatRow(bob.page, alice.handle)).toContainText('Before the lock');

    // A PIN, then the chat locked (written to the database, as the Lock menu would: the
    // server reads its users' locked chats when they connect).
    const status = await bob.page.evaluate(
      async () =>
        (
          await fetch('/api/me/pin', {
            method: 'PUT',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ pin: '123456' }),
          })
        ).status,
    );
    expect(status).toBe(200);
    const locked = withDb(server.dbFile, (db) =>
      db.prepare('UPDATE user_chats SET locked = 1 WHERE user_id = ?').run(bob.id),
    );
    expect(locked.changes).toBe(1);
    await bob.page.reload();
    // The list has loaded (so the page is connected): the chat has left it for the Locked shortcut.
    await expect(bob.page.getByRole('link', { name: 'Locked' })).toBeVisible();
    await expect(chatRow(bob.page, alice.handle)).toHaveCount(0);

    await setHidden(bob.page, true);
    await send(alice.page, 'The secret plan');
    await expect.poll(() => notes(bob.page)).toEqual([{ title: alice.handle, body: 'New message' }]);
    expect(JSON.stringify(await notes(bob.page))).not.toContain('secret');
  });

  test('the page offers to enable them and asks the browser only on Enable; Not now dismisses', async ({ world }) => {
    const me = await world.person('offer');
    await recordNotifications(me.context, 'default');
    await me.page.goto('/notifications');
    const offer = me.page.getByRole('region', { name: 'Browser notifications' });
    await expect(offer).toContainText('Get notified when Parley is in the background');
    await expect(me.page.getByText('No notifications', { exact: true })).toBeVisible();
    const requests = () =>
      me.page.evaluate(() => (window as unknown as { __permissionRequests: number }).__permissionRequests);
    expect(await requests()).toBe(0);

    await offer.getByRole('button', { name: 'Enable' }).click();
    await expect(offer).toHaveCount(0);
    expect(await requests()).toBe(1);

    // Another browser whose user says Not now: the offer does not come back.
    const other = await world.signIn(me.user, me.id);
    await recordNotifications(other.context, 'default');
    await other.page.goto('/notifications');
    const again = other.page.getByRole('region', { name: 'Browser notifications' });
    await again.getByRole('button', { name: 'Not now' }).click();
    await expect(again).toHaveCount(0);
    await other.page.reload();
    await expect(other.page.getByText('No notifications', { exact: true })).toBeVisible();
    await expect(again).toHaveCount(0);
    expect(await requests()).toBe(1);
  });
});

/**
 * Settings › "Download my data" (issue 16): two people talk (a contact request accepted, an
 * edited and a deleted message, a "<script>" that is only text), a third writes and that chat
 * is archived; the user downloads the zip their browser builds, the test unzips it (fflate in
 * Node), checks its JSON against what the screens show, opens a conversation's HTML page in
 * the browser and shoots it at 390 and 1280 px in light and dark. A refused export shows
 * its reason.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page, Route } from '@playwright/test';
import { strFromU8, unzipSync } from 'fflate';
import {
  archivedRow,
  gate,
  lockFromHome,
  openHome,
  PIN,
  rowMenu,
  setPin,
  toast,
  write,
} from './archive-lock-helpers.ts';
import {
  bubble,
  bubbles,
  chatRow,
  closeToasts,
  expect,
  openChat,
  openMessageMenu,
  setPrivacy,
  test,
} from './chat-helpers.ts';
import { shotSchemes } from './fixtures.ts';

const SCRIPT = '<script>alert(1)</script> is only text';

/** The texts of the conversation's bubbles, top to bottom, as the screen shows them. */
async function screenTexts(page: Page): Promise<string[]> {
  await expect(bubbles(page).first()).toBeVisible();
  const texts = () => bubbles(page).evaluateAll((els) => els.map((e) => e.querySelector('p')?.textContent ?? ''));
  // Read once every bubble shows its text (a bubble is drawn before its text is opened).
  await expect.poll(async () => (await texts()).includes('')).toBe(false);
  return texts();
}

function downloadRow(page: Page) {
  return page.getByRole('button', { name: 'Download my data' });
}

test('the export of a seeded account: its JSON is what the screens show, its HTML page reads in light and dark', async ({
  people,
}, testInfo) => {
  test.setTimeout(480_000);
  const alice = await people.person('xpa');
  const bob = await people.person('xpb');
  const carol = await people.person('xpc');

  // A contact request from alice, accepted by bob.
  await bob.page.goto('/home');
  await setPrivacy(bob.page, { requireRequest: true });
  await openChat(alice.page, bob);
  await alice.page.getByRole('textbox', { name: 'Message', exact: true }).fill('Hi Bob, it is Alice');
  await alice.page.getByRole('textbox', { name: 'Message', exact: true }).press('Enter');
  await expect(alice.page.getByRole('region', { name: 'Message request' })).toContainText('Request pending');
  await bob.page.goto('/notifications');
  await bob.page.getByRole('button', { name: 'Accept' }).click();
  await expect(alice.page.getByRole('textbox', { name: 'Message', exact: true })).toBeVisible();

  // Some talk: a "<script>", a reply, an edit and a deletion.
  await write(alice, bob, SCRIPT);
  await write(bob, alice, 'Sounds good, see you at 5');
  await write(alice, bob, 'Meet at 5');
  const a = alice.page;
  await (await openMessageMenu(a, bubble(a, 'Meet at 5'))).getByRole('menuitem', { name: 'Edit' }).click();
  const editBox = a.getByRole('textbox', { name: 'Edit message' });
  await editBox.fill('Meet at 6');
  await editBox.press('Enter');
  await expect(bubble(a, 'Meet at 6')).toContainText('edited');
  await write(alice, bob, 'Delete me');
  await (await openMessageMenu(a, bubble(a, 'Delete me'))).getByRole('menuitem', { name: 'Delete' }).click();
  await expect(bubble(a, 'This message deleted')).toBeVisible();
  await write(bob, alice, 'Bye!\nSecond line');
  const bobScreen = await screenTexts(a);

  // Carol writes; alice archives that chat.
  await write(carol, alice, 'Hello from Carol');
  await openHome(a);
  await rowMenu(a, chatRow(a, carol.handle), carol.handle, 'Archive', 'button');
  await expect(toast(a, 'Chat Archived')).toBeVisible();
  await a.goto('/archive');
  await expect(archivedRow(a, carol.handle)).toBeVisible();
  await openChat(a, carol);
  const carolScreen = await screenTexts(a);
  await a.goto('/notifications');
  await expect(a.getByRole('heading', { level: 1, name: 'Notifications' })).toBeVisible();
  const noticeTexts = await a.locator('main li').allInnerTexts();

  // The export code is not loaded before the click.
  const scripts: string[] = [];
  a.on('request', (r) => {
    if (r.resourceType() === 'script') scripts.push(r.url());
  });
  await a.goto('/settings');
  await expect(downloadRow(a)).toBeVisible();
  const before = scripts.length;

  // The server's answer held back a moment: the progress bar shows while it runs.
  let release = () => {};
  const held = new Promise<void>((r) => {
    release = r;
  });
  await a.route('**/api/me/export', async (route: Route) => {
    await held;
    await route.continue();
  });
  const download = a.waitForEvent('download');
  await downloadRow(a).click();
  const bar = a.getByRole('progressbar', { name: 'Preparing your data' });
  await expect(bar).toHaveAttribute('aria-valuenow', '0');
  expect(scripts.length).toBeGreaterThan(before);
  await shotSchemes(a, 'export-settings-progress');
  release();
  const file = await download;
  await expect(bar).toHaveCount(0);
  expect(file.suggestedFilename()).toMatch(
    new RegExp(`^parley-export-${alice.user.username}-\\d{4}-\\d{2}-\\d{2}\\.zip$`),
  );
  const zip = unzipSync(readFileSync(await file.path()));
  const text = (name: string) => strFromU8(zip[name] as Uint8Array);
  const json = (name: string) => JSON.parse(text(name));

  expect(Object.keys(zip).sort()).toEqual([
    'chats.json',
    'contacts.json',
    `conversations/${bob.user.username}.html`,
    `conversations/${carol.user.username}.html`,
    'index.html',
    'notifications.json',
    'profile.json',
    'settings.json',
  ]);
  expect(json('profile.json').account).toMatchObject({
    id: alice.id,
    username: alice.user.username,
    name: alice.user.name,
  });
  expect(json('settings.json')).toEqual({
    privacy: { readReceipts: true, lastSeen: true, requireRequest: false },
    chatPinSet: false,
  });
  expect(json('contacts.json').map((c: { user: { username: string } }) => c.user.username)).toEqual([
    bob.user.username,
  ]);
  const chats = json('chats.json') as {
    peer: { username: string };
    archived: boolean;
    messages: { text: string; edited: boolean; deleted: boolean; from: string; fromMe: boolean }[];
  }[];
  const byPeer = new Map(chats.map((c) => [c.peer.username, c]));
  const withBob = byPeer.get(bob.user.username);
  const withCarol = byPeer.get(carol.user.username);
  // The same texts, in the same order, as the conversation screens show.
  expect(withBob?.messages.map((m) => m.text)).toEqual(bobScreen);
  expect(withCarol?.messages.map((m) => m.text)).toEqual(carolScreen);
  expect(withBob?.messages.map((m) => m.text)).toEqual([
    'Hi Bob, it is Alice',
    SCRIPT,
    'Sounds good, see you at 5',
    'Meet at 6',
    'This message deleted',
    'Bye!\nSecond line',
  ]);
  expect(withBob?.messages.map((m) => [m.from, m.edited, m.deleted])).toEqual([
    [alice.handle, false, false],
    [alice.handle, false, false],
    [bob.handle, false, false],
    [alice.handle, true, false],
    [alice.handle, false, true],
    [bob.handle, false, false],
  ]);
  expect([withBob?.archived, withCarol?.archived]).toEqual([false, true]);
  // Every notification's text as /notifications shows it.
  const notes = json('notifications.json') as { text: string }[];
  expect(notes.length).toBe(noticeTexts.length);
  for (const n of notes) expect(noticeTexts.some((t) => t.includes(n.text))).toBe(true);

  // The conversation page, opened in the browser from the unzipped files.
  const dir = testInfo.outputPath('export');
  for (const [name, bytes] of Object.entries(zip)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), bytes);
  }
  const viewer = await alice.context.newPage();
  await viewer.goto(`file://${path.join(dir, 'conversations', `${bob.user.username}.html`)}`);
  await expect(viewer.getByRole('heading', { level: 1, name: bob.user.name })).toBeVisible();
  await expect(viewer.getByText(SCRIPT, { exact: true })).toBeVisible();
  await expect(viewer.locator('script')).toHaveCount(0);
  await expect(viewer.locator('li.day')).toHaveText(['Today']);
  await expect(viewer.getByText('This message deleted')).toBeVisible();
  await expect(viewer.locator('.bubble').filter({ hasText: 'Meet at 6' })).toContainText('edited');
  await shotSchemes(viewer, 'export-conversation', async (scheme) => {
    const bg = await viewer.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(bg).toBe(scheme === 'light' ? 'rgb(241, 245, 249)' : 'rgb(15, 23, 42)');
  });
  await viewer.goto(`file://${path.join(dir, 'index.html')}`);
  await expect(viewer.getByRole('link', { name: bob.user.name })).toBeVisible();
  await shotSchemes(viewer, 'export-index');
});

test('a refused export says why, and the row can be tried again', async ({ people }) => {
  const alice = await people.person('xpr');
  const a = alice.page;
  await a.route('**/api/me/export', (route) =>
    route.fulfill({
      status: 429,
      contentType: 'application/json',
      body: JSON.stringify({ error: 'rate_limited', message: 'Too many attempts. Please try again in 5 minutes.' }),
    }),
  );
  await a.goto('/settings');
  await downloadRow(a).click();
  await expect(a.getByRole('alert').filter({ hasText: 'Download failed' })).toHaveText(
    'Download failed: Too many attempts. Please try again in 5 minutes.',
  );
  await expect(downloadRow(a)).toBeEnabled();
  await shotSchemes(a, 'export-settings-failed');
});

/** The chats of a downloaded zip, as chats.json has them. */
async function downloadedChats(
  page: Page,
  click: () => Promise<void>,
): Promise<{ peer: { username: string }; withheld: boolean; messages: { text: string }[] }[]> {
  const download = page.waitForEvent('download');
  await click();
  const zip = unzipSync(readFileSync(await (await download).path()));
  return JSON.parse(strFromU8(zip['chats.json'] as Uint8Array));
}

test('a locked chat is left out until the PIN is given, then the row downloads it again with its messages', async ({
  people,
}) => {
  test.setTimeout(240_000);
  const alice = await people.person('xpl');
  const bob = await people.person('xpm');
  const a = alice.page;
  await write(alice, bob, 'A secret for the locked chat');
  await setPin(a);
  await lockFromHome(a, bob);

  await a.goto('/settings');
  const first = await downloadedChats(a, () => downloadRow(a).click());
  expect(first).toHaveLength(1);
  expect(first[0]?.withheld).toBe(true);
  expect(JSON.stringify(first)).not.toContain('A secret');
  const notice = a.getByRole('status').filter({ hasText: 'left out' });
  await expect(notice).toHaveText(/The messages of 1 locked chat were left out: they need your PIN\./);
  await closeToasts(a);

  // Cancel closes the PIN dialog and keeps the notice; a wrong PIN is refused in it.
  await notice.getByRole('button', { name: 'Enter PIN and download again' }).click();
  const dialog = a.getByRole('dialog', { name: 'Include locked chats' });
  const g = gate(a);
  await expect(g.input).toBeFocused();
  await g.cancel.click();
  await expect(dialog).toHaveCount(0);
  await expect(notice).toBeVisible();
  await notice.getByRole('button', { name: 'Enter PIN and download again' }).click();
  await g.input.fill('000000');
  await g.unlock.click();
  await expect(dialog.getByRole('alert')).toBeVisible();
  await shotSchemes(a, 'export-settings-pin');

  // The right PIN: the dialog closes and the download runs again, this time with the messages.
  const second = await downloadedChats(a, async () => {
    await g.input.fill(PIN);
    await g.unlock.click();
  });
  await expect(dialog).toHaveCount(0);
  expect(second[0]?.withheld).toBe(false);
  expect(second[0]?.messages.map((m) => m.text)).toEqual(['A secret for the locked chat']);
  await expect(notice).toHaveCount(0);
  await expect(toast(a, 'Your data is downloaded')).toBeVisible();
});

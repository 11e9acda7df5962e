/**
 * End-to-end encryption of messages (issue 14): a changed ciphertext shows "This message
 * couldn't be verified"; a new browser reads the whole history after signing in with the
 * password, again after a password change and after signing out and in; two people
 * writing first at the same moment end up with one chat key. (What the server keeps is
 * ciphertext only: e2ee-at-rest.spec.ts.)
 */
import { randomUUID } from 'node:crypto';
import { chatIdOf } from '@app/protocol';
import type { Page } from '@playwright/test';
import type Database from 'better-sqlite3';
import { E2E_DB_FILE } from '../env.ts';
import { expectToast } from './auth-helpers.ts';
import {
  bubble,
  chatRow,
  expect,
  openChat,
  openMessageMenu,
  type Person,
  send,
  shotSizes,
  test,
  tick,
} from './chat-helpers.ts';
import { signInViaApi } from './fixtures.ts';
import { nodePeer } from './node-peers.ts';
import { withDb } from './private-server.ts';

const UNVERIFIED = "This message couldn't be verified";
const withE2eDb = <T>(run: (db: Database.Database) => T): T => withDb(E2E_DB_FILE, run);

/**
 * Reads the chat with `peer` as someone would in this browser: its preview on the chat
 * list, the newest page, then older ones scrolling up to the first message, then down
 * again through every row. Every text is there once, in order, and opened. `unread`: the
 * chat opens at the line above the unread ones, and he jumps to the newest from there.
 */
async function readHistory(
  page: Page,
  peer: Pick<Person, 'id' | 'handle'>,
  texts: string[],
  unread = 0,
): Promise<void> {
  const newest = texts.at(-1) as string;
  await page.goto('/home');
  await expect(chatRow(page, peer.handle)).toContainText(newest);
  await openChat(page, peer);
  if (unread > 0) {
    await expect(page.getByText(`${unread} unread messages`, { exact: true })).toBeInViewport();
    await page.getByRole('button', { name: 'Jump to latest message', exact: true }).click();
  }
  await expect(bubble(page, newest)).toBeVisible();
  const list = page.getByRole('region', { name: `Conversation with ${peer.handle}` });
  await expect
    .poll(
      async () => {
        await list.evaluate((el) => {
          el.scrollTop = 0;
        });
        return page.getByText(texts[0] as string, { exact: true }).count();
      },
      { timeout: 30_000 },
    )
    .toBe(1);
  const shown = page.locator('[data-message-id] p');
  const read: string[] = [];
  for (let moved = true; moved; ) {
    // Rows still opening show no text yet.
    await expect.poll(() => shown.evaluateAll((ps) => ps.every((p) => p.textContent))).toBe(true);
    for (const t of await shown.allTextContents()) if (!read.includes(t)) read.push(t);
    moved = await list.evaluate(async (el) => {
      const before = el.scrollTop;
      el.scrollTop = before + el.clientHeight / 2;
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      return el.scrollTop > before;
    });
  }
  expect(read).toEqual(texts);
}

/**
 * Two browsers' first messages cross in flight: each one's first send that brings a chat
 * key is held (with whatever that socket sends after it, in order) until the other's has
 * been made too, then both go to the server. Neither can learn the other's key first, on
 * any machine however fast or slow. Returns the epoch of the key each one made, by
 * handle, and the handles of those whose send the server refused with 'conflict'.
 */
async function crossFirstKeys(people: Person[]): Promise<{ made: Map<string, number>; refused: string[] }> {
  const made = new Map<string, number>();
  const refused: string[] = [];
  let release = () => {};
  const both = new Promise<void>((r) => {
    release = r;
  });
  for (const p of people) {
    await p.context.routeWebSocket(/\/ws$/, (ws) => {
      const server = ws.connectToServer();
      server.onMessage((message) => {
        if (typeof message === 'string' && JSON.parse(message).code === 'conflict') refused.push(p.handle);
        ws.send(message);
      });
      let queue = Promise.resolve();
      ws.onMessage((message) => {
        queue = queue.then(async () => {
          const frame = typeof message === 'string' ? JSON.parse(message) : null;
          if (frame?.t === 'send' && frame.chatKey && !made.has(p.handle)) {
            made.set(p.handle, frame.chatKey.epoch);
            if (made.size === people.length) release();
            await both;
          }
          server.send(message);
        });
      });
    });
  }
  return { made, refused };
}

async function idOf(page: Page, text: string): Promise<string> {
  return (await bubble(page, text).first().getAttribute('data-message-id')) ?? '';
}

test.describe('sealed messages', () => {
  test('a changed ciphertext, one moved to another message, or an older revision replayed shows as unverified', async ({
    people,
  }) => {
    const [alice, bob] = await Promise.all([people.person('alice'), people.person('bob')]);
    const tag = randomUUID().slice(0, 8);
    const [one, two, three] = [`first ${tag}`, `second ${tag}`, `third ${tag}`];
    await openChat(alice.page, bob);
    for (const t of [one, two, three]) await send(alice.page, t);
    await openChat(bob.page, alice);
    await expect(bubble(bob.page, three)).toBeVisible();
    const ids = { one: await idOf(bob.page, one), two: await idOf(bob.page, two), three: await idOf(bob.page, three) };
    const ctOf = (id: string) =>
      withE2eDb((db) => (db.prepare('SELECT text FROM messages WHERE id = ?').get(id) as { text: string }).text);
    const original = ctOf(ids.three);

    // Third: edited (revision 1); its original ciphertext is put back while the server says revision 1.
    const menu = await openMessageMenu(alice.page, bubble(alice.page, three));
    await menu.getByRole('menuitem', { name: 'Edit' }).click();
    const input = alice.page.getByRole('textbox', { name: 'Edit message' });
    await input.fill(`${three} edited`);
    await input.press('Enter');
    await expect(bubble(bob.page, `${three} edited`)).toBeVisible();

    withE2eDb((db) => {
      const set = db.prepare('UPDATE messages SET text = ? WHERE id = ?');
      const first = ctOf(ids.one);
      const i = Math.floor(first.length / 2);
      // One: a character in the middle changed. Two: the first message's ciphertext.
      set.run(`${first.slice(0, i)}${first[i] === 'A' ? 'B' : 'A'}${first.slice(i + 1)}`, ids.one);
      set.run(first, ids.two);
      set.run(original, ids.three);
    });
    const fresh = await bob.context.newPage();
    await openChat(fresh, alice);
    await expect(fresh.locator('[data-message-id] p')).toHaveText([UNVERIFIED, UNVERIFIED, UNVERIFIED]);
    // None of their texts is in the conversation (the chat list beside it previews its
    // summary, which the server left alone and which opens as the edit).
    await expect(fresh.getByRole('region', { name: `Conversation with ${alice.handle}` }).getByText(tag)).toHaveCount(
      0,
    );
    await shotSizes(fresh, 'message-unverified');
  });

  test('a new browser reads 120 messages of history after signing in, again after a password change, and after signing out and in', async ({
    people,
  }) => {
    // The whole history read three times.
    test.setTimeout(240_000);
    // Alice writes from a socket, sealing as a browser does: how she sends is not what is tested here.
    const [alice, bob] = await Promise.all([nodePeer('alice'), people.person('bob')]);
    const tag = randomUUID().slice(0, 6);
    const texts = Array.from({ length: 120 }, (_, i) => `history ${tag} #${i + 1}`);
    for (const [i, t] of texts.entries()) {
      await alice.send(bob, t);
      // Within the server's write limits: a burst of 100, then 20 a second.
      if (i >= 90) await new Promise((r) => setTimeout(r, 60));
    }
    await alice.close();

    // Bob in a browser that has never seen him: only the password.
    const second = await people.signIn(bob.user, bob.id);
    await readHistory(second.page, alice, texts, texts.length);

    // He changes his password there, on the Account screen; a third browser signs in with the new one.
    const changed = { ...bob.user, password: 'changed-secret-7' };
    await second.page.goto('/account');
    const form = second.page.getByRole('region', { name: 'Change Password' });
    await form.locator('#account-current-password').fill(bob.user.password);
    await form.locator('#account-new-password').fill(changed.password);
    await form.getByRole('button', { name: 'Update Password' }).click();
    await expectToast(second.page, 'Password Updated', undefined, 'success');
    const third = await people.signIn(changed, bob.id);
    await readHistory(third.page, alice, texts);

    // He signs out there (this browser's keys go with the session) and in again.
    await third.page.goto('/account');
    await third.page.getByRole('button', { name: 'Logout' }).click();
    await expect(third.page).toHaveURL(/\/signin$/);
    await signInViaApi(third.page, changed.email, changed.password);
    await readHistory(third.page, alice, texts);
  });

  test('two people who never talked write first at the same moment: one chat key, both messages read on both sides', async ({
    people,
  }) => {
    const [alice, bob] = await Promise.all([people.person('alice'), people.person('bob')]);
    const { made, refused } = await crossFirstKeys([alice, bob]);
    await openChat(alice.page, bob);
    await openChat(bob.page, alice);
    const tag = randomUUID().slice(0, 8);
    const first = { [alice.id]: `first from alice ${tag}`, [bob.id]: `first from bob ${tag}` };
    const inputs = [alice, bob].map((p) => p.page.getByRole('textbox', { name: 'Message', exact: true }));
    await Promise.all([alice, bob].map((p, i) => inputs[i]?.fill(first[p.id] as string)));
    // Both composers submitted together.
    await Promise.all(inputs.map((input) => input.press('Enter')));

    for (const p of [alice, bob]) {
      const own = bubble(p.page, first[p.id] as string);
      await expect(own).toBeVisible();
      // One of the two is refused (the other's key came first) and sent again under that key.
      await expect(tick(own, 'Pending')).toHaveCount(0, { timeout: 15_000 });
    }
    // Read in both browsers, in a new tab each (from the server, not the sender's own copy).
    for (const p of [alice, bob]) {
      const tab = await p.context.newPage();
      await openChat(tab, p === alice ? bob : alice);
      for (const text of Object.values(first)) await expect(bubble(tab, text)).toBeVisible();
      await expect(tab.getByText(UNVERIFIED)).toHaveCount(0);
    }
    const keys = withE2eDb((db) =>
      db.prepare('SELECT epoch FROM chat_keys WHERE chat_id = ?').all(chatIdOf(alice.id, bob.id)),
    );
    expect(keys).toEqual([{ epoch: 1 }]);
    // Both browsers made a key for epoch 1, and the server refused the second to arrive.
    expect(made).toEqual(
      new Map([
        [alice.handle, 1],
        [bob.handle, 1],
      ]),
    );
    expect(refused).toHaveLength(1);
  });

  test('both people see the same security code, 60 digits in 12 groups', async ({ people }) => {
    const [alice, bob] = await Promise.all([people.person('alice'), people.person('bob')]);
    const codeOf = async (page: Page, peer: { id: string; handle: string }) => {
      await openChat(page, peer);
      await page.getByRole('button', { name: 'Compare security code' }).click();
      const dialog = page.getByRole('dialog', { name: 'Compare security code' });
      await expect(dialog.getByTestId('security-code').locator('span')).toHaveCount(12);
      return dialog.getByTestId('security-code').locator('span').allTextContents();
    };
    const seen = await codeOf(alice.page, bob);
    expect(seen.every((g) => /^\d{5}$/.test(g))).toBe(true);
    expect(await codeOf(bob.page, alice)).toEqual(seen);
    await shotSizes(bob.page, 'security-code');
  });
});

/**
 * End-to-end encryption of messages (issue 14): a changed ciphertext shows "This message
 * couldn't be verified", and a new browser reads the whole history after signing in with
 * the password. (What the server keeps is ciphertext only: e2ee-at-rest.spec.ts.)
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { E2E_DATA_DIR } from '../env.ts';
import { bubble, expect, openChat, openMessageMenu, send, shotSizes, test } from './chat-helpers.ts';

const DB_FILE = path.join(E2E_DATA_DIR, 'parley.sqlite');
const UNVERIFIED = "This message couldn't be verified";

function withDb<T>(run: (db: Database.Database) => T): T {
  const db = new Database(DB_FILE);
  try {
    db.pragma('busy_timeout = 5000');
    return run(db);
  } finally {
    db.close();
  }
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
      withDb((db) => (db.prepare('SELECT text FROM messages WHERE id = ?').get(id) as { text: string }).text);
    const original = ctOf(ids.three);

    // Third: edited (revision 1); its original ciphertext is put back while the server says revision 1.
    const menu = await openMessageMenu(alice.page, bubble(alice.page, three));
    await menu.getByRole('menuitem', { name: 'Edit' }).click();
    const input = alice.page.getByRole('textbox', { name: 'Edit message' });
    await input.fill(`${three} edited`);
    await input.press('Enter');
    await expect(bubble(bob.page, `${three} edited`)).toBeVisible();

    withDb((db) => {
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
    await expect(fresh.getByText(tag)).toHaveCount(0);
    await shotSizes(fresh, 'message-unverified');
  });

  test('a new browser reads 120 messages of history after signing in, newest first, older on scroll-up', async ({
    people,
  }) => {
    test.setTimeout(120_000);
    const [alice, bob] = await Promise.all([people.person('alice'), people.person('bob')]);
    const tag = randomUUID().slice(0, 6);
    await openChat(alice.page, bob);
    for (let i = 1; i <= 120; i++) await send(alice.page, `history ${tag} #${i}`);
    await expect(bubble(alice.page, `history ${tag} #120`).getByRole('img', { name: 'Sent' })).toBeVisible();

    // Bob in a browser that has never seen him: only the password.
    const later = await people.signIn(bob.user, bob.id);
    await openChat(later.page, alice);
    await expect(bubble(later.page, `history ${tag} #120`)).toBeVisible();
    const list = later.page.getByRole('region', { name: /Conversation with/ });
    await expect
      .poll(
        async () => {
          await list.evaluate((el) => {
            el.scrollTop = 0;
          });
          return later.page.getByText(`history ${tag} #1`, { exact: true }).count();
        },
        { timeout: 30_000 },
      )
      .toBe(1);
    await expect(later.page.getByText(UNVERIFIED)).toHaveCount(0);
  });

  test('both people see the same security code, 60 digits in 12 groups', async ({ people }) => {
    const [alice, bob] = await Promise.all([people.person('alice'), people.person('bob')]);
    const codeOf = async (page: Page, peer: { id: string; handle: string }) => {
      await openChat(page, peer);
      await page.getByRole('button', { name: 'Verify security code' }).click();
      const dialog = page.getByRole('dialog', { name: 'Verify security code' });
      await expect(dialog.getByTestId('security-code').locator('span')).toHaveCount(12);
      return dialog.getByTestId('security-code').locator('span').allTextContents();
    };
    const seen = await codeOf(alice.page, bob);
    expect(seen.every((g) => /^\d{5}$/.test(g))).toBe(true);
    expect(await codeOf(bob.page, alice)).toEqual(seen);
    await shotSizes(bob.page, 'security-code');
  });
});

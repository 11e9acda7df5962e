/**
 * End-to-end encryption of messages (issue 14): what the server keeps is ciphertext only,
 * a changed ciphertext shows "This message couldn't be verified", and a new browser reads
 * the whole history after signing in with the password.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { E2E_DATA_DIR } from '../env.ts';
import { bubble, expect, openChat, openMessageMenu, send, setPrivacy, shotSizes, test } from './chat-helpers.ts';

const DB_FILE = path.join(E2E_DATA_DIR, 'parley.sqlite');
const UNVERIFIED = "This message couldn't be verified";

/** Every way a text could sit in a file: UTF-8, UTF-16LE, hex, and base64/base64url at the three alignments. */
function encodings(text: string): Buffer[] {
  const utf8 = Buffer.from(text, 'utf8');
  const out = [utf8, Buffer.from(text, 'utf16le'), Buffer.from(utf8.toString('hex'))];
  for (let shift = 0; shift < 3; shift++) {
    const b64 = Buffer.concat([Buffer.alloc(shift), utf8]).toString('base64');
    // The characters that depend on the text alone (not on the padding around it).
    const inner = b64.slice(Math.ceil((shift * 4) / 3) + 1, -4);
    out.push(Buffer.from(inner), Buffer.from(inner.replace(/\+/g, '-').replace(/\//g, '_')));
  }
  return out;
}

function found(haystack: Buffer, text: string): boolean {
  return encodings(text).some((needle) => haystack.includes(needle));
}

function serverFiles(): Buffer {
  const files = [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`];
  const outbox = path.join(E2E_DATA_DIR, 'outbox');
  for (const f of readdirSync(outbox, { withFileTypes: true })) if (f.isFile()) files.push(path.join(outbox, f.name));
  return Buffer.concat(files.map((f) => readFileSync(f)));
}

/** Everything this page's origin keeps in IndexedDB, as JSON (keys show as {}: they are not extractable). */
function indexedDbDump(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const out: unknown[] = [];
    for (const info of await indexedDB.databases()) {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const req = indexedDB.open(info.name ?? '');
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
      for (const store of [...db.objectStoreNames]) {
        const rows = await new Promise<unknown[]>((resolve) => {
          const req = db.transaction(store).objectStore(store).getAll();
          req.onsuccess = () => resolve(req.result);
        });
        out.push({ db: info.name, store, rows });
      }
      db.close();
    }
    return JSON.stringify(out);
  });
}

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
  test('no message text at rest: the database, WAL, mail outbox and both browsers hold ciphertext only', async ({
    people,
  }) => {
    test.setTimeout(90_000);
    const [alice, bob, carol] = await Promise.all([
      people.person('alice'),
      people.person('bob'),
      people.person('carol'),
    ]);
    const c = `cnry-${randomUUID()}`;
    const canaries = {
      sent: `${c}-sent`,
      unicode: `${c}-ü漢字🙂`,
      edited: `${c}-edited`,
      deleted: `${c}-deleted`,
      reply: `${c}-reply`,
      request: `${c}-request`,
      unsent: `${c}-unsent`,
    };
    await openChat(alice.page, bob);
    await openChat(bob.page, alice);
    for (const t of [canaries.sent, canaries.unicode, `${c}-before-edit`, canaries.deleted]) await send(alice.page, t);
    await expect(bubble(bob.page, canaries.deleted)).toBeVisible();
    await send(bob.page, canaries.reply);
    await expect(bubble(alice.page, canaries.reply)).toBeVisible();

    let menu = await openMessageMenu(alice.page, bubble(alice.page, `${c}-before-edit`));
    await menu.getByRole('menuitem', { name: 'Edit' }).click();
    const input = alice.page.getByRole('textbox', { name: 'Edit message' });
    await input.fill(canaries.edited);
    await input.press('Enter');
    await expect(bubble(bob.page, canaries.edited)).toBeVisible();
    menu = await openMessageMenu(alice.page, bubble(alice.page, canaries.deleted));
    await menu.getByRole('menuitem', { name: 'Delete' }).click();
    await expect(bubble(bob.page, canaries.deleted)).toHaveCount(0);

    // A stranger's request to Bob, who takes messages from contacts only.
    await setPrivacy(bob.page, { requireRequest: true });
    await openChat(carol.page, bob);
    await send(carol.page, canaries.request);
    await bob.page.goto('/notifications');
    await expect(bob.page.getByText(canaries.request)).toBeVisible();

    // One message waits in Alice's outbox while she is offline.
    await alice.context.setOffline(true);
    await send(alice.page, canaries.unsent);
    await expect(bubble(alice.page, canaries.unsent)).toBeVisible();
    await expect.poll(async () => (await indexedDbDump(alice.page)).includes('"sealed":"')).toBe(true);

    const disk = serverFiles();
    for (const [name, text] of Object.entries(canaries)) expect(found(disk, text), `${name} on the server`).toBe(false);
    // Positive control: what is plaintext by design (a handle) is found by the same scan.
    expect(found(disk, alice.user.username)).toBe(true);
    for (const p of [alice.page, bob.page, carol.page]) {
      const dump = Buffer.from(await indexedDbDump(p));
      for (const [name, text] of Object.entries(canaries))
        expect(found(dump, text), `${name} in IndexedDB`).toBe(false);
    }
    // Back online, the waiting message goes out.
    await alice.context.setOffline(false);
    await expect(bubble(alice.page, canaries.unsent).getByRole('img', { name: 'Sent' })).toBeVisible({
      timeout: 15_000,
    });
  });

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

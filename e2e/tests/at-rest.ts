/**
 * The scan for message text at rest (docs/e2ee.md), shared by every at-rest test:
 * the conversation that leaves unique canaries (sent, non-ASCII, edited, deleted, a
 * reply quoting one, a forward, a reaction, a stranger's request, one unsent in the outbox,
 * and the search index that holds them all), the scan of raw bytes in every
 * encoding a text could take, and what each browser keeps in IndexedDB.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { openHome, rowMenu, setPin, write } from './archive-lock-helpers.ts';
import {
  bubble,
  bubbles,
  chatRow,
  expect,
  openChat,
  openMessageMenu,
  type Person,
  send,
  setPrivacy,
  tick,
} from './chat-helpers.ts';
import { sendRequest } from './private-world.ts';

/** Every way a text could sit in a file: UTF-8, UTF-16LE, hex, and base64/base64url at the three alignments. */
export function encodings(text: string): Buffer[] {
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

export function found(haystack: Buffer, text: string): boolean {
  return encodings(text).some((needle) => haystack.includes(needle));
}

/** The names of the canaries found in `haystack`, in any encoding. */
export function canariesIn(haystack: Buffer, canaries: Record<string, string>): string[] {
  return Object.entries(canaries)
    .filter(([, text]) => found(haystack, text))
    .map(([name]) => name);
}

/**
 * None of the canaries is in `haystack`, and `control` (plaintext by design, a handle) is:
 * the same scan finds what is there to find.
 */
export function expectSealed(haystack: Buffer, canaries: Record<string, string>, control: string, where: string): void {
  expect(canariesIn(haystack, canaries), `canaries in ${where}`).toEqual([]);
  expect(found(haystack, control), `the positive control (${control}) in ${where}`).toBe(true);
}

/** A server's SQLite database with its WAL and shared memory, and the mails in its outbox. */
export function sqliteFiles(dataDir: string): Buffer {
  const db = path.join(dataDir, 'parley.sqlite');
  const files = [db, `${db}-wal`, `${db}-shm`];
  const outbox = path.join(dataDir, 'outbox');
  for (const f of readdirSync(outbox, { withFileTypes: true })) if (f.isFile()) files.push(path.join(outbox, f.name));
  return Buffer.concat(files.map((f) => readFileSync(f)));
}

/** Everything this page's origin keeps in IndexedDB, as JSON (keys show as {}: they are not extractable). */
export function indexedDbDump(page: Page): Promise<string> {
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

/** A set of unique canaries; `any` (the part they share) catches a truncated or escaped one too. */
export function makeCanaries() {
  const c = `cnry-${randomUUID()}`;
  return {
    any: c,
    sent: `${c}-sent`,
    unicode: `${c}-ü漢字🙂`,
    edited: `${c}-edited`,
    deleted: `${c}-deleted`,
    reply: `${c}-reply`,
    forwarded: `${c}-forwarded`,
    /** The tail of 🏳️‍🌈 (ZWJ and 🌈), the reaction: seven bytes no other text holds. */
    reaction: '\u200D\u{1F308}',
    request: `${c}-request`,
    locked: `${c}-locked`,
    unsent: `${c}-unsent`,
  };
}

export type Canaries = ReturnType<typeof makeCanaries>;

/** The canaries a server stores whatever its cipher (all but the deleted one and the one never sent). */
export const STORED = ['any', 'sent', 'unicode', 'edited', 'reply', 'forwarded', 'reaction', 'request', 'locked'];

/**
 * The conversation: Alice sends four messages to Bob (one non-ASCII), edits one and
 * deletes one, Bob replies, Bob locks the chat (a PIN) and Alice writes into it, Carol (a
 * stranger) writes to Bob, who takes messages from contacts only, so hers is a request;
 * then Alice goes offline and one message waits in her outbox. Ends with Alice offline (see `deliverUnsent`).
 */
export async function leaveCanaries(alice: Person, bob: Person, carol: Person, canaries: Canaries): Promise<void> {
  const beforeEdit = `${canaries.any}-before-edit`;
  await openChat(alice.page, bob);
  await openChat(bob.page, alice);
  for (const t of [canaries.sent, canaries.unicode, beforeEdit, canaries.deleted]) await send(alice.page, t);
  await expect(bubble(bob.page, canaries.deleted)).toBeVisible();
  // Bob replies to the first (its excerpt sealed in the reply), and writes one Alice forwards back.
  const quoted = bubble(bob.page, canaries.sent);
  await quoted.hover();
  await quoted
    .locator('..')
    .getByRole('button', { name: /^Reply to message from @/ })
    .click();
  await send(bob.page, canaries.reply);
  await expect(bubble(alice.page, canaries.reply).getByRole('button', { name: /Go to the original/ })).toContainText(
    canaries.sent,
  );
  await send(bob.page, canaries.forwarded);
  {
    const forward = await openMessageMenu(alice.page, bubble(alice.page, canaries.forwarded));
    await forward.getByRole('menuitem', { name: 'Forward' }).click();
    const chooser = alice.page.getByRole('dialog', { name: 'Forward message' });
    await chooser.getByRole('checkbox', { name: bob.handle }).click();
    await chooser.getByRole('button', { name: 'Forward (1)' }).click();
    // (The line itself, exactly: the canary's own text ends in '-forwarded'.)
    await expect(bubbles(bob.page).filter({ has: bob.page.getByText('Forwarded', { exact: true }) })).toHaveCount(1);
  }
  // Alice reacts to the reply with 🏳️‍🌈, from the full picker.
  const replied = bubble(alice.page, canaries.reply);
  await replied.hover();
  await replied
    .locator('..')
    .getByRole('button', { name: /^React to message from @/ })
    .click();
  const picker = alice.page.getByRole('dialog', { name: 'React to message' });
  await picker.getByRole('button', { name: 'More reactions' }).click();
  await picker.getByLabel('Search emoji').fill('rainbow flag');
  await picker.getByLabel('rainbow flag').first().click();
  await expect(
    bubble(bob.page, canaries.reply).locator('xpath=../..').getByRole('button', { name: /1: @/ }),
  ).toBeVisible();

  let menu = await openMessageMenu(alice.page, bubble(alice.page, beforeEdit));
  await menu.getByRole('menuitem', { name: 'Edit' }).click();
  const input = alice.page.getByRole('textbox', { name: 'Edit message' });
  await input.fill(canaries.edited);
  await input.press('Enter');
  await expect(bubble(bob.page, canaries.edited)).toBeVisible();
  menu = await openMessageMenu(alice.page, bubble(alice.page, canaries.deleted));
  await menu.getByRole('menuitem', { name: 'Delete' }).click();
  await expect(bubble(bob.page, canaries.deleted)).toHaveCount(0);

  await setPin(bob.page);
  await openHome(bob.page);
  await rowMenu(bob.page, chatRow(bob.page, alice.handle), alice.handle, 'Lock', 'button');
  await write(alice, bob, canaries.locked);

  await setPrivacy(bob.page, { requireRequest: true });
  await sendRequest(carol, bob, canaries.request);
  await bob.page.goto('/notifications');
  await expect(bob.page.getByText(canaries.request)).toBeVisible();

  // Alice's search index holds the chat, sealed (written a moment after it changed).
  await expect
    .poll(async () => /"db":"parley-search","store":"chats","rows":\[\{/.test(await indexedDbDump(alice.page)))
    .toBe(true);

  await alice.context.setOffline(true);
  await send(alice.page, canaries.unsent);
  await expect(bubble(alice.page, canaries.unsent)).toBeVisible();
  await expect.poll(async () => (await indexedDbDump(alice.page)).includes('"sealed":"')).toBe(true);
}

/** Alice back online: the message waiting in her outbox goes out. */
export async function deliverUnsent(alice: Person, canaries: Canaries): Promise<void> {
  await alice.context.setOffline(false);
  const b = bubble(alice.page, canaries.unsent);
  await expect(tick(b, 'Pending')).toHaveCount(0, { timeout: 15_000 });
  await expect(b.getByRole('img', { name: /^(Sent|Delivered|Read)$/ })).toBeVisible();
}

/** No canary in any of these browsers' IndexedDB. */
export async function expectBrowsersSealed(people: Person[], canaries: Canaries): Promise<void> {
  for (const p of people) {
    const dump = Buffer.from(await indexedDbDump(p.page));
    expect(canariesIn(dump, canaries), `canaries in ${p.handle}'s IndexedDB`).toEqual([]);
  }
}

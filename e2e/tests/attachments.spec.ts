/**
 * Photos and files between two people in two browsers: a photo picked with the clip button
 * (with a caption), another pasted into the composer, a file dropped on the conversation;
 * the peer sees them live and after a reload, downloads the file, forwards the photo, gets
 * a photo sent as a file byte for byte, and is told when a blob changed on the server's disk. Nothing of them is on the server in the clear. axe and
 * pictures of the attach dialog and of the conversation, light and dark, 1280 and 390.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { E2E_DATA_DIR } from '../env.ts';
import { canariesIn, expectSealed, sqliteFiles } from './at-rest.ts';
import { scanSchemes } from './axe.ts';
import { bubbles, expect, openChat, openMessageMenu, test } from './chat-helpers.ts';

const NOTES = 'canary-5e1f in the notes';

/** A PNG drawn in the page (a red card with words in its pixels), as bytes. */
function drawPng(page: Page, words: string): Promise<number[]> {
  return page.evaluate(async (text) => {
    const c = document.createElement('canvas');
    c.width = 640;
    c.height = 480;
    const x = c.getContext('2d') as CanvasRenderingContext2D;
    x.fillStyle = '#d33';
    x.fillRect(0, 0, 640, 480);
    x.fillStyle = '#fff';
    x.font = '40px sans-serif';
    x.fillText(text, 40, 240);
    const blob = await new Promise<Blob>((r) => c.toBlob((b) => r(b as Blob), 'image/png'));
    return [...new Uint8Array(await blob.arrayBuffer())];
  }, words);
}

/** Every file under `dir`, newest first. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
}

test('photos picked and pasted and a file dropped go sealed; the peer sees them live and after a reload', async ({
  people,
}) => {
  const [alice, bob] = [await people.person('alice'), await people.person('bob')];
  const a = alice.page;
  const b = bob.page;
  await openChat(a, bob);
  await openChat(b, alice);
  const findings: string[] = [];

  // Picked with the clip button, with a caption.
  const png = Buffer.from(await drawPng(a, 'canary-pixels'));
  const chooser = a.waitForEvent('filechooser');
  await a.getByRole('button', { name: 'Attach files' }).click();
  await (await chooser).setFiles({ name: 'beach.png', mimeType: 'image/png', buffer: png });
  const dialog = a.getByRole('dialog', { name: 'Send 1 file' });
  await expect(dialog).toContainText('beach.png');
  await dialog.getByRole('textbox', { name: 'Caption for beach.png' }).fill('At the beach');
  await scanSchemes(a, 'attach-dialog', findings);
  await dialog.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(dialog).toHaveCount(0);
  await expect(b.getByRole('img', { name: 'At the beach' })).toBeVisible();
  await expect(a.getByRole('img', { name: 'At the beach' })).toBeVisible();

  // Pasted into the composer.
  await a.getByRole('textbox', { name: 'Message' }).evaluate(
    (el, bytes) => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(bytes)], 'pasted.png', { type: 'image/png' }));
      el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
    },
    [...png],
  );
  await a.getByRole('dialog', { name: 'Send 1 file' }).getByRole('button', { name: 'Send', exact: true }).click();
  await expect(b.getByRole('img', { name: `Photo from ${alice.handle}` })).toBeVisible();

  // Dropped on the conversation.
  const dropped = await a.evaluateHandle((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'notes.txt', { type: 'text/plain' }));
    return dt;
  }, NOTES);
  await a
    .getByRole('region', { name: `Conversation with ${bob.handle}` })
    .dispatchEvent('drop', { dataTransfer: dropped });
  await a.getByRole('dialog', { name: 'Send 1 file' }).getByRole('button', { name: 'Send', exact: true }).click();
  const download = b.getByRole('button', { name: 'Download notes.txt' });
  await expect(download).toBeVisible();
  const saving = b.waitForEvent('download');
  await download.click();
  const saved = await saving;
  expect(saved.suggestedFilename()).toBe('notes.txt');
  expect(readFileSync(await saved.path(), 'utf8')).toBe(NOTES);
  await scanSchemes(b, 'attachments-chat', findings);

  // The photos large, one after the other (arrows and keys), and the chat info's media.
  await b.getByRole('button', { name: 'Open photo: At the beach' }).click();
  const viewer = b.getByRole('dialog', { name: 'Photo 1 of 2' });
  await expect(viewer.getByRole('img', { name: 'At the beach' })).toBeVisible();
  await viewer.getByRole('button', { name: 'Next photo' }).click();
  await expect(b.getByRole('dialog', { name: 'Photo 2 of 2' })).toBeVisible();
  await b.keyboard.press('ArrowLeft');
  await expect(b.getByRole('dialog', { name: 'Photo 1 of 2' })).toBeVisible();
  await scanSchemes(b, 'photo-viewer', findings);
  await b.keyboard.press('Escape');
  await b.getByRole('heading', { level: 1, name: alice.handle }).getByRole('button').click();
  const info = b.getByRole('dialog', { name: 'Contact info' });
  const media = info.getByRole('region', { name: 'Media and files' });
  await expect(media.getByRole('tab', { name: 'Photos (2)' })).toBeVisible();
  await media.getByRole('tab', { name: 'Files (1)' }).click();
  await expect(media.getByRole('button', { name: 'Download notes.txt' })).toBeVisible();
  await scanSchemes(b, 'chat-media', findings);
  await b.keyboard.press('Escape');

  // The list says what it is.
  await b.goto('/home');
  await expect(b.getByRole('list', { name: 'Chats' })).toContainText('📎 notes.txt');

  // Nothing of it on the server in the clear, in any encoding: not the words, not the names,
  // not the caption; not in the database (where the same scan finds alice's handle), nor by the blobs.
  const canaries = { words: NOTES, file: 'notes.txt', photo: 'beach.png', caption: 'At the beach' };
  expectSealed(sqliteFiles(E2E_DATA_DIR), canaries, alice.user.username, 'the database');
  for (const file of filesUnder(path.join(E2E_DATA_DIR, 'attachments'))) {
    expect(canariesIn(readFileSync(file), canaries), file).toEqual([]);
  }

  // After a reload: shown again. Forwarded (back to Alice, the chat Bob has): a new file, marked so.
  await openChat(b, alice);
  const beach = bubbles(b).filter({ has: b.getByRole('img', { name: 'At the beach' }) });
  await expect(beach).toBeVisible();
  await (await openMessageMenu(b, beach)).getByRole('menuitem', { name: 'Forward' }).click();
  const forwarding = b.getByRole('dialog', { name: 'Forward message' });
  await forwarding.getByRole('checkbox', { name: alice.handle }).click();
  await forwarding.getByRole('button', { name: 'Forward (1)' }).click();
  const forwarded = bubbles(a).filter({ has: a.getByText('Forwarded', { exact: true }) });
  await expect(forwarded.getByRole('img', { name: 'At the beach' })).toBeVisible();
  await forwarded.scrollIntoViewIfNeeded();
  await scanSchemes(a, 'attachments-forwarded', findings);

  // A photo sent as a file, in its original quality: the very bytes picked.
  const original = await a.evaluateHandle(
    (bytes) => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(bytes)], 'original.png', { type: 'image/png' }));
      return dt;
    },
    [...png],
  );
  await a
    .getByRole('region', { name: `Conversation with ${bob.handle}` })
    .dispatchEvent('drop', { dataTransfer: original });
  const asFile = a.getByRole('dialog', { name: 'Send 1 file' });
  await asFile.getByRole('checkbox', { name: /Send photos as files, in their original quality/ }).check();
  await asFile.getByRole('button', { name: 'Send', exact: true }).click();
  const savingOriginal = b.waitForEvent('download');
  await b.getByRole('button', { name: 'Download original.png' }).click();
  expect(readFileSync(await (await savingOriginal).path()).equals(png)).toBe(true);

  // A blob changed on the server's disk is not believed.
  const second = await a.evaluateHandle(() => {
    const dt = new DataTransfer();
    dt.items.add(new File(['the second file'], 'second.txt', { type: 'text/plain' }));
    return dt;
  });
  await a
    .getByRole('region', { name: `Conversation with ${bob.handle}` })
    .dispatchEvent('drop', { dataTransfer: second });
  await a.getByRole('dialog', { name: 'Send 1 file' }).getByRole('button', { name: 'Send', exact: true }).click();
  await expect(b.getByRole('button', { name: 'Download second.txt' })).toBeVisible();
  const newest = filesUnder(path.join(E2E_DATA_DIR, 'attachments'))[0] as string;
  const changed = readFileSync(newest);
  changed[20] = (changed[20] as number) ^ 1;
  writeFileSync(newest, changed);
  await b.getByRole('button', { name: 'Download second.txt' }).click();
  await expect(b.getByText("This file couldn't be verified")).toBeVisible();
  expect(findings).toEqual([]);
});

test('a 20 MB file cut off by a reload resumes where the server got to, and reaches the peer', async ({ people }) => {
  test.setTimeout(120_000);
  const [alice, bob] = [await people.person('alice'), await people.person('bob')];
  const a = alice.page;
  const b = bob.page;
  await openChat(a, bob);
  await openChat(b, alice);
  // The third chunk (of 8 MiB; the file has three) never gets an answer: the page is reloaded
  // while it waits. Big enough to be cut mid-way, small enough to be quick to seal and send.
  let patches = 0;
  const uploads = '**/api/attachments/uploads/*';
  await a.route(uploads, async (route) => {
    if (route.request().method() !== 'PATCH') return route.fallback();
    patches += 1;
    if (patches <= 2) return route.fallback();
  });
  const big = await a.evaluateHandle(() => {
    const dt = new DataTransfer();
    const bytes = new Uint8Array(20_000_000);
    for (let i = 0; i < bytes.length; i += 4096) bytes[i] = i & 0xff;
    dt.items.add(new File([bytes], 'big.bin', { type: 'application/octet-stream' }));
    return dt;
  });
  await a.getByRole('region', { name: `Conversation with ${bob.handle}` }).dispatchEvent('drop', { dataTransfer: big });
  await a.getByRole('dialog', { name: 'Send 1 file' }).getByRole('button', { name: 'Send', exact: true }).click();
  await expect(a.getByRole('progressbar', { name: 'Uploading' })).toBeVisible();
  await expect.poll(() => patches, { timeout: 30_000 }).toBe(3);
  await a.unroute(uploads);
  await a.reload();
  // After the reload the outbox asks where the upload is and sends only the rest.
  const download = b.getByRole('button', { name: 'Download big.bin' });
  await expect(download).toBeVisible({ timeout: 60_000 });
  const saving = b.waitForEvent('download');
  await download.click();
  const saved = await saving;
  expect(statSync(await saved.path()).size).toBe(20_000_000);
});

/**
 * Attachments with the real ChatClient against a real server (SQLite and PostgreSQL): a file
 * sealed, uploaded and sent, opened by the peer, with nothing of it on the server in the
 * clear; a blob changed on the server's disk shown as not verified; an upload cut off
 * resumed by the next page from where the server got to; a file forwarded to another chat
 * as a new one.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chatIdOf } from '@app/protocol';
import { ENGINES, tusCreate, tusHead, tusPatch } from '@app/server/test';
import { describe, expect, it } from 'vitest';
import { newUser, online, opened, shown, type TestUser, until, useTabServer } from '@/test/chat-clients';
import { testSealing } from '@/test/local-sealing';
import { memoryOutbox } from '@/test/memory-outbox';
import type { Shown } from '../crypto/message-crypto';
import { AttachmentError, UNVERIFIED_FILE } from './attachment-files';
import type { PreparedFile } from './prepared-file';

const MB = 1_000_000;
const CANARY = 'canary-4f1d-in-the-file';

function fileOf(size: number, name = 'notes.txt'): PreparedFile {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + 7) & 0xff;
  bytes.set(new TextEncoder().encode(CANARY), 100);
  return { file: new Blob([bytes], { type: 'text/plain' }), name, type: 'text/plain', kind: 'file' };
}

function refOf(s: Shown | undefined) {
  const ref = s?.kind === 'text' ? s.attachments?.[0] : undefined;
  if (!ref) throw new Error(`no attachment: ${JSON.stringify(s)}`);
  return ref;
}

describe.each(ENGINES)('attachments between two tabs ($name)', ({ url }) => {
  const { t, tab, pair } = useTabServer(url, 'files');

  it('sends a file sealed; the peer opens it, and nothing of it is on the server in the clear', async () => {
    const [alice, bob, a, b] = await pair();
    const f = fileOf(300_000, 'holiday-plans.txt');
    const queued = await a.client.sendFile(bob.id, f, 'the plans', 10 * MB);
    expect('stored' in queued).toBe(true);
    await until(() => shown(b, alice.id).length === 1, "Alice's file", 10_000);
    const [got] = await opened(b, shown(b, alice.id));
    const ref = refOf(got);
    expect(got).toMatchObject({ kind: 'text', text: 'the plans' });
    expect(ref).toMatchObject({ name: 'holiday-plans.txt', type: 'text/plain', size: 300_000, kind: 'file' });
    const blob = await b.client.files.open(ref);
    expect(new Uint8Array(await blob.arrayBuffer())).toEqual(new Uint8Array(await f.file.arrayBuffer()));
    expect(blob.type).toBe('text/plain');

    // On the server: a blob without the canary, a message without the name or the caption.
    const onDisk = readFileSync(path.join(t.config.attachmentDir, ref.id));
    expect(onDisk.includes(Buffer.from(CANARY))).toBe(false);
    const page = JSON.stringify(await t.server.ctx.chat.history(chatIdOf(alice.id, bob.id), 50));
    expect(page).not.toMatch(/holiday-plans|the plans/);
    // Nothing kept beside the blob (no note with a name or type).
    expect(readdirSync(t.config.attachmentDir).filter((n) => n.startsWith(ref.id))).toEqual([ref.id]);
  });

  it('forwards a file to another chat sealed anew: a new blob and key, the same bytes, marked forwarded', async () => {
    const [alice, bob, a, b] = await pair();
    const carol: TestUser = await newUser(t);
    const c = tab(carol);
    await online(c);
    c.client.openConversation(bob.id);
    const f = fileOf(150_000, 'minutes.txt');
    await a.client.sendFile(bob.id, f, 'the minutes', 10 * MB);
    await until(() => shown(b, alice.id).length === 1, "Alice's file", 10_000);
    const original = b.client.getConversation(alice.id).messages[0];
    if (!original) throw new Error('no message');
    const from = refOf((await opened(b, [original]))[0]);

    expect(await b.client.forwardMessage(original, [carol.id], 10 * MB)).toBeNull();
    await until(() => shown(c, bob.id).length === 1, 'the forwarded file', 10_000);
    const [got] = await opened(c, shown(c, bob.id));
    expect(got).toMatchObject({ kind: 'text', text: 'the minutes', forwarded: true });
    const ref = refOf(got);
    // A blob of its own, under a key of its own: the server cannot link it to the first.
    expect(ref.id).not.toBe(from.id);
    expect(ref.key).not.toEqual(from.key);
    expect(ref.digest).not.toBe(from.digest);
    expect(ref).toMatchObject({ name: 'minutes.txt', type: 'text/plain', size: 150_000, kind: 'file' });
    const blob = await c.client.files.open(ref);
    expect(new Uint8Array(await blob.arrayBuffer())).toEqual(new Uint8Array(await f.file.arrayBuffer()));
    // Carol reads it; she cannot read the first one, which stays in its own chat.
    const theFirst = await fetch(`${t.url}/api/attachments/${from.id}`, { headers: { cookie: `sid=${carol.cookie}` } });
    expect(theFirst.status).toBe(404);
  });

  it("finds a chat's media beyond the loaded messages (the media pages)", async () => {
    const [alice, bob, a, b] = await pair();
    await a.client.sendFile(bob.id, fileOf(20_000, 'early.txt'), 'early', 10 * MB);
    for (let i = 0; i < 60; i++) a.client.sendMessage(bob.id, `later ${i}`);
    await until(() => shown(b, alice.id).length === 61, 'every message', 20_000);
    const b2 = tab(bob);
    await online(b2);
    b2.client.openConversation(alice.id);
    await until(() => b2.client.getConversation(alice.id).messages.length === 50, 'the newest page');
    expect(b2.client.getConversation(alice.id).messages.some((m) => m.id === shown(b, alice.id)[0]?.id)).toBe(false);
    const release = b2.client.media.open(alice.id);
    await until(
      () => !b2.client.media.view(alice.id).loading && b2.client.media.view(alice.id).messages.length > 0,
      'the media',
    );
    const page = b2.client.media.view(alice.id);
    expect(page.hasMore).toBe(false);
    expect(page.messages).toHaveLength(1);
    const [early] = await opened(b2, [...page.messages]);
    expect(refOf(early)).toMatchObject({ name: 'early.txt', size: 20_000 });
    // The last screen closed: forgotten.
    release();
    expect(b2.client.media.view(alice.id).messages).toHaveLength(0);
  });

  it('shows a blob changed on the server as not verified', async () => {
    const [alice, bob, a] = await pair();
    await a.client.sendFile(bob.id, fileOf(70_000), '', 10 * MB);
    const b2 = tab(bob);
    await online(b2);
    b2.client.openConversation(alice.id);
    await until(() => shown(b2, alice.id).length === 1, 'the file', 10_000);
    const ref = refOf((await opened(b2, shown(b2, alice.id)))[0]);
    const file = path.join(t.config.attachmentDir, ref.id);
    const bytes = readFileSync(file);
    bytes[5000] = (bytes[5000] as number) ^ 1;
    writeFileSync(file, bytes);
    const failure = await b2.client.files.open(ref).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(AttachmentError);
    expect(failure).toMatchObject({ kind: 'unverified', message: UNVERIFIED_FILE });
  });

  it('resumes an upload a reload cut off, from where the server got to', async () => {
    const [alice, bob] = [await newUser(t), await newUser(t)];
    const outbox = memoryOutbox();
    const sealing = testSealing();
    const a = tab(alice, { outboxStore: outbox.store, localSealing: sealing });
    await online(a);
    // Queued offline: sealed and kept, nothing uploaded.
    a.env.goOffline();
    await a.client.sendFile(bob.id, fileOf(200_000), 'resumed', 10 * MB);
    await until(() => outbox.rows.size === 1, 'the entry at rest');
    a.stop();
    // The page before got half of it up before the reload.
    const [entry] = [...outbox.rows.values()] as { msgId: string; upload: { blob: Blob; url?: string } }[];
    if (!entry) throw new Error('no entry');
    const sealed = new Uint8Array(await entry.upload.blob.arrayBuffer());
    const created = await tusCreate(t.url, alice.cookie, sealed.length);
    const half = 100_000;
    expect((await tusPatch(t.url, alice.cookie, created.location, 0, sealed.subarray(0, half))).status).toBe(204);
    outbox.rows.set(entry.msgId, { ...entry, upload: { ...entry.upload, url: created.location } });

    const a2 = tab(alice, { outboxStore: outbox.store, localSealing: sealing });
    const b = tab(bob);
    await Promise.all([online(a2), online(b)]);
    b.client.openConversation(alice.id);
    await until(() => shown(b, alice.id).length === 1, 'the resumed file', 10_000);
    const ref = refOf((await opened(b, shown(b, alice.id)))[0]);
    expect(created.location.endsWith(ref.id)).toBe(true);
    expect((await tusHead(t.url, alice.cookie, created.location)).headers.get('upload-offset')).toBe(
      String(sealed.length),
    );
    const blob = await b.client.files.open(ref);
    expect(blob.size).toBe(200_000);
    await until(() => outbox.rows.size === 0, 'the entry gone once sent');
  });

  it('cancels a file still uploading: its upload stops and is dropped, and nothing is sent', async () => {
    const [alice, bob] = [await newUser(t), await newUser(t)];
    const outbox = memoryOutbox();
    const a = tab(alice, { outboxStore: outbox.store });
    const b = tab(bob);
    await Promise.all([online(a), online(b)]);
    b.client.openConversation(alice.id);
    a.client.openConversation(bob.id);
    await a.client.sendFile(bob.id, fileOf(40 * MB, 'big.bin'), '', 100 * MB);
    type Row = { msgId: string; upload?: { url?: string; id?: string } };
    await until(() => [...outbox.rows.values()].some((e) => (e as Row).upload?.url), 'the upload begun', 10_000);
    const entry = [...outbox.rows.values()][0] as Row;
    const url = entry.upload?.url as string;
    a.client.cancelUpload(entry.msgId);
    expect(a.client.getConversation(bob.id).messages).toHaveLength(0);
    await until(() => outbox.rows.size === 0, 'the entry gone');
    // Dropped on the server (a DELETE, as it goes).
    for (let i = 0; i < 100 && (await tusHead(t.url, alice.cookie, url)).status !== 404; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await tusHead(t.url, alice.cookie, url)).status).toBe(404);
    await new Promise((r) => setTimeout(r, 300));
    expect(shown(b, alice.id)).toHaveLength(0);
  }, 30_000);
});

/**
 * "Download my data" with the real pieces in Node: the server's stream (GET /api/me/export)
 * read by readArchive, every message opened by a fresh tab's MessageCrypto (the screens'
 * code), a chat of 1,201 sealed messages included (three pages opened at once: the chat's
 * key is fetched and opened once, not once per message). SQLite.
 */
import { API, chatIdOf, meSchema } from '@app/protocol';
import { Sealer, WsTestClient } from '@app/server/test';
import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { newUser, online, textsOf, until, useTabServer } from '@/test/chat-clients';
import { ndjsonLines, readArchive } from './export-read';
import { archiveAttachments, archiveFiles, zipFiles } from './export-zip';

describe('the export read by a tab (SQLite)', () => {
  const { t, tab } = useTabServer('', 'export');

  it('opens every message as the conversation shows it, in order, across pages', async () => {
    const [alice, bob] = [await newUser(t), await newUser(t)];
    const b = tab(bob);
    const a = tab(alice);
    await Promise.all([online(a), online(b)]);
    a.client.openConversation(bob.id);
    b.client.sendMessage(alice.id, 'first from bob <b>');
    await until(() => a.client.getConversation(bob.id).messages.length === 1, 'the first message');
    a.client.sendMessage(bob.id, 'a reply');
    await until(() => a.client.getConversation(bob.id).messages.every((m) => !m.pending), 'the reply to be stored');

    // 1,199 more sealed by bob's keys in Node and written into the database.
    const ws = await WsTestClient.connect(t, bob.cookie);
    const sealer = Sealer.of(bob.id) as Sealer;
    const chatId = chatIdOf(alice.id, bob.id);
    const base = Date.now() + 1000;
    const rows = await Promise.all(
      Array.from({ length: 1199 }, async (_, i) => {
        const id = `seed-${String(i).padStart(5, '0')}`;
        const { ct } = await sealer.seal(alice.id, id, `seeded ${i}`, 0, ws);
        return {
          chat_id: chatId,
          id,
          sender_id: bob.id,
          recipient_id: alice.id,
          text: ct,
          sealed: 1 as const,
          rev: 0,
          timestamp: base + i,
          status: 'delivered' as const,
          edited: 0 as const,
          deleted: 0 as const,
          delivered_at: base + i,
          read_at: null,
        };
      }),
    );
    await ws.close();
    for (let i = 0; i < rows.length; i += 300) {
      await t.server.ctx.chat.db
        .insertInto('messages')
        .values(rows.slice(i, i + 300))
        .execute();
    }
    const shownTexts = await textsOf(a, bob.id);

    // A fresh tab of alice's (nothing opened yet) reads the export.
    const fresh = tab(alice);
    await online(fresh);
    const headers = { cookie: `sid=${alice.cookie}` };
    const me = meSchema.parse((await (await fetch(t.url + API.session, { headers })).json()).user);
    const res = await fetch(t.url + API.exportData, { headers });
    expect(res.status).toBe(200);
    const started = performance.now();
    const progress: number[] = [];
    const archive = await readArchive(
      ndjsonLines(res.body as ReadableStream<Uint8Array>),
      me,
      (r) => fresh.client.crypto.read(r),
      (p) => progress.push(p.messages),
    );
    const ms = performance.now() - started;
    expect(progress).toEqual([0, 500, 1000, 1201]);
    const [chat] = archive.chats;
    const texts = chat?.messages.map((m) => m.text) ?? [];
    expect(texts).toHaveLength(1201);
    expect(texts.slice(0, 2)).toEqual(['first from bob <b>', 'a reply']);
    expect(texts.slice(2)).toEqual(rows.map((_, i) => `seeded ${i}`));
    // What the conversation showed before the seeding is the export's start.
    expect(texts.slice(0, shownTexts.length)).toEqual(shownTexts);
    expect(chat?.messages.every((m) => !m.notice)).toBe(true);
    const files = archiveFiles(archive);
    expect(files.get(`conversations/${bob.username}.html`)).toContain('first from bob &lt;b&gt;');
    console.log(`read and opened 1,201 sealed messages in ${Math.round(ms)} ms`);
  });
});

describe('attachments in the export (SQLite)', () => {
  const { t, pair } = useTabServer('', 'export-files');

  it('opens each photo or file into the zip, named after its message, with no key in the JSON', async () => {
    const [alice, bob, a] = await pair();
    const bytes = new TextEncoder().encode('the contents of the notes');
    await a.client.sendFile(
      bob.id,
      { file: new Blob([bytes], { type: 'text/plain' }), name: 'notes/../x.txt', type: 'text/plain', kind: 'file' },
      'my notes',
      1_000_000,
    );
    await until(() => a.client.getConversation(bob.id).messages.some((m) => !m.pending), 'the file sent');
    const headers = { cookie: `sid=${alice.cookie}` };
    const me = meSchema.parse((await (await fetch(t.url + API.session, { headers })).json()).user);
    const res = await fetch(t.url + API.exportData, { headers });
    const archive = await readArchive(
      ndjsonLines(res.body as ReadableStream<Uint8Array>),
      me,
      (r) => a.client.crypto.read(r),
      () => {},
    );
    const parts = await zipFiles(archiveFiles(archive), archive.exportedAt, archiveAttachments(archive), (ref) =>
      a.client.files.open(ref),
    );
    const zip = unzipSync(new Uint8Array(await new Blob(parts as BlobPart[]).arrayBuffer()));
    const message = archive.chats[0]?.messages[0];
    const path = `attachments/${message?.id}-notes_.._x.txt`;
    expect(message?.attachment?.file).toBe(path);
    expect(strFromU8(zip[path] as Uint8Array)).toBe('the contents of the notes');
    const chats = strFromU8(zip['chats.json'] as Uint8Array);
    expect(chats).toContain('"name": "notes/../x.txt"');
    expect(chats).not.toContain('"key"');
    expect(strFromU8(zip[`conversations/${bob.username}.html`] as Uint8Array)).toContain(`href="../${path}"`);
  });
});

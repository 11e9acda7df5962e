/**
 * What the server does with sealed texts after a send (docs/e2ee.md): an edit is the
 * next revision under the current key (an older one replayed does not open as the stored
 * revision), a deletion replaces every ciphertext of the message with its sender's
 * tombstone, a contact request keeps the sealed
 * first message and Accept moves it unchanged, a locked chat withholds ciphertexts without
 * a PIN grant, and the database file never holds a message's text. Runs on SQLite, and on
 * PostgreSQL too when TEST_DATABASE_URL is set (the file check: SQLite only).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { API, type ChatMessage } from '@app/protocol';
import { sampleCiphertext } from '@app/protocol/test/samples';
import { describe, expect, it } from 'vitest';
import { putNewKeys } from '../test/accounts.ts';
import { ENGINES, LOOSE_LIMITS, useTestServer } from '../test/harness.ts';
import { connectedPerson, setPin, setPrivacy, settle, waitUpdate } from '../test/people.ts';
import { WsTestClient } from '../test/ws-client.ts';

function present<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('missing');
  return value;
}

describe.each(ENGINES)('sealed texts on $name', ({ url }) => {
  const t = useTestServer({ engine: url, tag: 'sealed_edits', config: { rateLimits: LOOSE_LIMITS } });
  const person = () => connectedPerson(t);
  const db = () => t.server.ctx.chat.db;

  it('an edit is the next revision under the current key; the peer opens it; an older one replayed does not', async () => {
    const a = await person();
    const b = await person();
    const m = await a.ws.sendMessage(b.user.id, 'first draft');
    const { chatId } = m;
    const edit = (text: string, rev: number) => a.ws.sealedEdit(chatId, m.id, text, rev);
    expect((await a.ws.requestError('edit', await edit('same revision', 0))).code).toBe('conflict');
    expect((await a.ws.requestError('edit', await edit('skips one', 2))).code).toBe('conflict');
    const otherEpoch = { chatId, msgId: m.id, ct: sampleCiphertext(2, 1) };
    expect((await a.ws.requestError('edit', otherEpoch)).code).toBe('rekey_required');
    expect((await b.ws.requestError('edit', await b.ws.sealedEdit(chatId, m.id, 'not mine', 1))).code).toBe(
      'forbidden',
    );
    expect((await a.ws.request('history', { peerId: b.user.id })).messages).toEqual([m]);

    const seq = b.ws.lastSeq;
    const edited = await a.ws.editMessage(chatId, m.id, 'second draft');
    expect(edited).toMatchObject({ id: m.id, rev: 1, edited: true });
    const pushed = await waitUpdate(b.ws, 'message', seq, (u) => u.message.id === m.id && u.message.rev === 1);
    expect(pushed.message).toMatchObject({ ct: edited.ct, rev: 1 });
    expect(await b.ws.textOf(pushed.message)).toBe('second draft');
    const chat = (await b.ws.request('chats')).chats[0];
    expect(chat?.last).toMatchObject({ id: m.id, ct: edited.ct, rev: 1, deleted: false });
    expect(chat && (await b.ws.lastText(chat))).toBe('second draft');
    expect(await b.ws.textOf(await a.ws.editMessage(chatId, m.id, 'third draft'))).toBe('third draft');

    // The server puts back the first revision (it cannot make a new one): it does not open as revision 2.
    await db()
      .updateTable('messages')
      .set({ text: m.ct as string })
      .where('id', '=', m.id)
      .execute();
    const replayed: ChatMessage = present((await b.ws.request('history', { peerId: a.user.id })).messages[0]);
    expect(replayed).toMatchObject({ ct: m.ct, rev: 2 });
    await expect(b.ws.textOf(replayed)).rejects.toThrow('could not be verified');
    // Nor anywhere else: another message's ciphertext under this id.
    const other = await a.ws.sendMessage(b.user.id, 'another message');
    await expect(b.ws.textOf({ ...other, id: m.id, rev: 0 })).rejects.toThrow('could not be verified');
  });

  it('an edit under a key older than either side’s keys is refused: a send makes the next key first', async () => {
    const a = await person();
    const b = await person();
    const m = await a.ws.sendMessage(b.user.id, 'before b starts over');
    // b starts over with a new identity: the chat's key is sealed to keys b no longer has.
    b.sealer.setContents((await putNewKeys(b.client, b.user.id, b.secrets, 'identity')).contents);
    const stale = await a.ws.sealedEdit(m.chatId, m.id, 'b could not open this', 1);
    expect((await a.ws.requestError('edit', stale)).code).toBe('rekey_required');
    expect((await b.ws.request('history', { peerId: a.user.id })).messages).toMatchObject([{ ct: m.ct, rev: 0 }]);
    await a.sealer.rekey(b.user.id, a.ws);
    await a.ws.sendMessage(b.user.id, 'under the next key');
    const edited = await a.ws.editMessage(m.chatId, m.id, 'b opens this');
    expect(edited).toMatchObject({ rev: 1 });
    expect(await b.ws.textOf(edited)).toBe('b opens this');
  });

  it('a deletion replaces the ciphertext with the sender’s tombstone, the next revision, under a key of the chat', async () => {
    const a = await person();
    const b = await person();
    const keep = await a.ws.sendMessage(b.user.id, 'this one stays');
    const gone = await a.ws.sendMessage(b.user.id, 'this one goes');
    // No tombstone, one of another revision, or one under an epoch the chat has not: refused.
    expect((await a.ws.requestError('delete', { chatId: gone.chatId, msgId: gone.id })).code).toBe('conflict');
    expect((await a.ws.requestError('delete', await a.ws.sealedDelete(gone.chatId, gone.id, 0))).code).toBe('conflict');
    const otherEpoch = { chatId: gone.chatId, msgId: gone.id, ct: sampleCiphertext(9, 1) };
    expect((await a.ws.requestError('delete', otherEpoch)).code).toBe('rekey_required');
    const message = await a.ws.deleteMessage(gone.chatId, gone.id);
    expect(message).toMatchObject({ id: gone.id, rev: 1, legacyText: null, deleted: true });
    expect(message.ct).not.toBe(gone.ct);
    const pushed = await waitUpdate(b.ws, 'message', 0, (u) => u.message.id === gone.id && u.message.deleted);
    expect(pushed.message).toMatchObject({ ct: message.ct, rev: 1, deleted: true });
    // b opens it as a's deletion (a tombstone, no text).
    expect(await b.ws.textOf(pushed.message)).toBeNull();
    const history = (await b.ws.request('history', { peerId: a.user.id })).messages;
    expect(history.map((m) => [m.id, m.ct, m.deleted])).toEqual([
      [keep.id, keep.ct, false],
      [gone.id, message.ct, true],
    ]);
    for (const p of [a, b]) {
      expect((await p.ws.request('chats')).chats[0]?.last).toEqual({
        id: gone.id,
        senderId: a.user.id,
        ct: message.ct,
        rev: 1,
        legacyText: null,
        deleted: true,
      });
    }
    const row = await db()
      .selectFrom('messages')
      .select(['text', 'deleted'])
      .where('chat_id', '=', gone.chatId)
      .where('id', '=', gone.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ text: message.ct, deleted: 1 });
    const summaries = await db()
      .selectFrom('user_chats')
      .select(['last_message', 'last_id'])
      .where('chat_id', '=', gone.chatId)
      .execute();
    // Summaries refer to the message (the previews above come from its row) and copy no text of it.
    expect(summaries).toEqual([
      { last_message: null, last_id: gone.id },
      { last_message: null, last_id: gone.id },
    ]);
    expect((await a.ws.requestError('edit', await a.ws.sealedEdit(gone.chatId, gone.id, 'back?', 2))).code).toBe(
      'conflict',
    );
    expect((await a.ws.requestError('delete', await a.ws.sealedDelete(gone.chatId, gone.id, 2))).code).toBe('conflict');
  });

  it('the update log holds no ciphertext (messages by reference); a resume reads each message as it is now, in order', async () => {
    const a = await person();
    const b = await person();
    const keep = await a.ws.sendMessage(b.user.id, 'stays in the log');
    const gone = await a.ws.sendMessage(b.user.id, 'first words');
    const edited = await a.ws.editMessage(gone.chatId, gone.id, 'second words');
    await b.ws.request('read', { peerId: a.user.id });
    await waitUpdate(a.ws, 'message', 0, (u) => u.message.id === gone.id && u.message.status === 'read');
    const logOf = (userId: string) =>
      db().selectFrom('user_updates').select(['seq', 'payload']).where('user_id', '=', userId).orderBy('seq').execute();
    const before = await logOf(b.user.id);
    const replayOf = async (p: typeof a) => (await t.server.ctx.chat.updatesSince(p.user.id, 0)) ?? [];
    const entriesOf = (replay: Awaited<ReturnType<typeof replayOf>>, id: string) =>
      replay.flatMap((u) => (u.update.kind === 'message' && u.update.message.id === id ? [u.update.message] : []));
    for (const p of [a, b]) {
      const log = await logOf(p.user.id);
      for (const ct of [keep.ct, gone.ct, edited.ct])
        expect(log.some((r) => r.payload.includes(ct as string))).toBe(false);
      // Every entry of the edited message, its send's included, replays its edit, read.
      const replay = await replayOf(p);
      expect(entriesOf(replay, gone.id).length).toBeGreaterThan(2);
      for (const m of entriesOf(replay, gone.id)) expect(m).toMatchObject({ ct: edited.ct, rev: 1, status: 'read' });
    }
    await a.ws.deleteMessage(gone.chatId, gone.id);
    for (const p of [a, b]) {
      const replay = await replayOf(p);
      // Entries keep their seqs: a client resuming from before the send gets every entry, and ends on the deletion.
      expect(replay.map((u) => u.seq)).toEqual((await logOf(p.user.id)).map((r) => Number(r.seq)));
      for (const m of entriesOf(replay, gone.id)) expect(m).toMatchObject({ deleted: true, rev: 2 });
      expect(replay.some((u) => JSON.stringify(u.update).includes(edited.ct as string))).toBe(false);
      for (const m of entriesOf(replay, keep.id)) expect(m.ct).toBe(keep.ct);
    }
    expect((await logOf(b.user.id)).map((r) => r.seq).slice(0, before.length)).toEqual(before.map((r) => r.seq));
  });

  it('a deletion takes the text out of log entries written before the log held messages by reference', async () => {
    const a = await person();
    const b = await person();
    const gone = await a.ws.sendMessage(b.user.id, 'logged whole, as before 1.1');
    // An entry as the log stored it before: the message with its ciphertext.
    const user = await db()
      .selectFrom('users')
      .select('update_seq')
      .where('id', '=', b.user.id)
      .executeTakeFirstOrThrow();
    const seq = Number(user.update_seq) + 1;
    await db().updateTable('users').set({ update_seq: seq }).where('id', '=', b.user.id).execute();
    const old = JSON.stringify({ kind: 'message', message: gone });
    await db()
      .insertInto('user_updates')
      .values({ user_id: b.user.id, seq, kind: 'message', payload: old, created_at: 1 })
      .execute();
    await a.ws.deleteMessage(gone.chatId, gone.id);
    const row = await db()
      .selectFrom('user_updates')
      .select('payload')
      .where('user_id', '=', b.user.id)
      .where('seq', '=', seq)
      .executeTakeFirstOrThrow();
    expect(row.payload).not.toContain(gone.ct as string);
    expect(JSON.parse(row.payload)).toMatchObject({ message: { id: gone.id, deleted: true, ct: null } });
  });

  it("deleting one's message leaves a message whose id differs only in case as it was, in a resume too", async () => {
    const a = await person();
    const b = await person();
    const theirs = await a.ws.sendMessage(b.user.id, 'must survive', 'casecheck-aaaa1111');
    const mine = await b.ws.sendMessage(a.user.id, 'will be deleted', 'CASECHECK-AAAA1111');
    await b.ws.deleteMessage(mine.chatId, mine.id);
    for (const p of [a, b]) {
      const replay = (await t.server.ctx.chat.updatesSince(p.user.id, 0)) ?? [];
      const states = replay.flatMap((u) => (u.update.kind === 'message' ? [u.update.message] : []));
      expect(states.filter((m) => m.id === theirs.id).every((m) => m.ct === theirs.ct && !m.deleted)).toBe(true);
      expect(states.filter((m) => m.id === mine.id).every((m) => m.deleted && m.ct !== mine.ct)).toBe(true);
      expect(states.filter((m) => m.id === theirs.id).length).toBeGreaterThan(0);
    }
  });

  it('a request keeps the sealed first message; Accept makes it the message with the same ciphertext', async () => {
    const a = await person();
    const b = await person();
    await setPrivacy(b, { requireRequest: true });
    await waitUpdate(b.ws, 'privacy', 0, (u) => u.privacy.requireRequest);
    const sealed = await a.ws.sealedSend(b.user.id, 'may I write to you?');
    expect(sealed.chatKey?.epoch).toBe(1);
    const r = await a.ws.request('send', sealed);
    expect(r).toMatchObject({ request: { state: 'pending', msgId: sealed.msgId, ct: sealed.ct, legacyText: null } });
    const note = (await waitUpdate(b.ws, 'notification', 0, (u) => u.notification.type === 'request')).notification;
    expect(note).toMatchObject({ msgId: sealed.msgId, ct: sealed.ct, legacyText: null });
    if (note.type !== 'request') throw new Error('not a request');
    expect(await b.ws.requestText(note, a.user.id, b.user.id)).toBe('may I write to you?');
    expect((await a.ws.request('history', { peerId: b.user.id })).access).toMatchObject({ ct: sealed.ct });

    const seq = b.ws.lastSeq;
    await b.ws.request('respondRequest', { notificationId: note.id, accept: true });
    const arrived = (await waitUpdate(b.ws, 'message', seq)).message;
    expect(arrived).toMatchObject({ id: sealed.msgId, senderId: a.user.id, ct: sealed.ct, rev: 0 });
    expect(await b.ws.textOf(arrived)).toBe('may I write to you?');
    const row = await db()
      .selectFrom('messages')
      .select(['text', 'sealed'])
      .where('id', '=', sealed.msgId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ text: sealed.ct, sealed: 1 });
    const reply = await b.ws.sendMessage(a.user.id, 'yes, you may');
    expect(await a.ws.textOf(reply)).toBe('yes, you may');
  });

  it('a locked chat without a PIN grant gets no ciphertext, live or on resume; the grant brings it', async () => {
    const a = await person();
    const b = await person();
    await a.ws.sendMessage(b.user.id, 'before the lock');
    await setPin(b, '123456');
    await b.ws.request('chatFlags', { peerId: a.user.id, locked: true });
    const seq = b.ws.lastSeq;
    const hidden = await a.ws.sendMessage(b.user.id, 'while locked');
    const edited = await a.ws.editMessage(hidden.chatId, hidden.id, 'edited while locked');
    await b.ws.waitFor(() => b.ws.updates().some((u) => u.update.kind === 'message' && u.update.message.edited));
    await settle(b.ws);
    const resumed = await WsTestClient.connect(t, b.client.cookie, seq);
    await settle(resumed);
    for (const ws of [b.ws, resumed]) {
      const frames = ws.updates().filter((u) => u.seq > seq);
      expect(frames.length).toBeGreaterThan(2);
      for (const u of frames) {
        if (u.update.kind === 'message') expect(u.update.message).toMatchObject({ ct: null, legacyText: null });
        if (u.update.kind === 'chat') expect(u.update.chat.last).toBeNull();
      }
      for (const ct of [hidden.ct, edited.ct]) expect(JSON.stringify(ws.frames)).not.toContain(ct);
    }
    await resumed.close();
    expect((await b.client.post(API.verifyPin, { pin: '123456' })).status).toBe(200);
    const history = (await b.ws.request('history', { peerId: a.user.id })).messages;
    expect(history.map((m) => [m.ct === null, m.rev])).toEqual([
      [false, 0],
      [false, 1],
    ]);
    expect(history[1]?.ct).toBe(edited.ct);
    expect(await Promise.all(history.map((m) => b.ws.textOf(m)))).toEqual(['before the lock', 'edited while locked']);
  });

  it.skipIf(url !== '')('the SQLite file and its WAL never hold a message’s text', async () => {
    const tag = Date.now().toString(36);
    const a = await person();
    const b = await person();
    // A canary only the browsers see, and (the positive control) a name the server stores as it is.
    const canary = `canary-${tag}-${'zq'.repeat(8)}`;
    const name = `Control Name ${tag.replace(/\d/g, 'x')}`;
    const profile = { name, phone: '5551234567', age: 30, profilePic: null };
    expect((await a.client.request('PUT', API.profile, profile)).status).toBe(200);
    const m = await a.ws.sendMessage(b.user.id, `${canary} one`);
    await b.ws.sendMessage(a.user.id, `${canary} two`);
    await a.ws.editMessage(m.chatId, m.id, `${canary} three`);
    await setPrivacy(b, { requireRequest: true });
    const c = await person();
    await c.ws.send(b.user.id, `${canary} four (a request)`);
    const stored = present((await b.ws.request('history', { peerId: a.user.id })).messages[0]);
    expect(await b.ws.textOf(stored)).toBe(`${canary} three`);
    const file = path.join(t.dataDir, 'parley.sqlite');
    const bytes = Buffer.concat([file, `${file}-wal`].map((f) => readFileSync(f)));
    expect(bytes.includes(Buffer.from(name))).toBe(true);
    expect(bytes.includes(Buffer.from(canary))).toBe(false);
    expect(bytes.includes(Buffer.from('zq'.repeat(8)))).toBe(false);
  });
});

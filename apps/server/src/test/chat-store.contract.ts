/** The chat half of the storage contract: same results on SQLite and PostgreSQL. */
import { type ChatMessage, chatIdOf, summaryAfter } from '@app/protocol';
import { sampleChatKey, sampleCiphertext } from '@app/protocol/test/samples';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountStore } from '../storage/accounts/account-store.ts';
import type { Db } from '../storage/db.ts';
import { migrate } from '../storage/db.ts';
import { ChatError, ChatStore, chatWrites } from '../storage/messages/chat-store.ts';
import { giveKeys, sampleSealed, sampleText } from './store-keys.ts';

/** A send that must store a message (no contact request is involved in these tests). */
async function sendOk(chat: ChatStore, ...args: Parameters<ChatStore['send']>) {
  const r = await chat.send(...args);
  if (!('message' in r)) throw new Error('unexpected contact request');
  return r;
}

/** A sealed send of the sample ciphertext `fill` (bringing the chat's first key if it has none). */
async function sendSample(chat: ChatStore, db: Db, from: string, to: string, msgId: string, fill: number, now: number) {
  return sendOk(chat, from, to, msgId, await sampleSealed(db.kysely, from, to, fill), now);
}

let n = 0;
/** A user with keys (as every account since end-to-end encryption has), or `withKeys` false: one from before. */
async function user(store: AccountStore, username?: string, withKeys = true) {
  n += 1;
  const tag = `${n}_${Math.random().toString(36).slice(2, 7)}`;
  const u = await store.createUser({
    username: username ?? `c_${tag}`,
    email: `c_${tag}@example.com`,
    name: 'Chat User',
    phone: '5551234567',
    age: 30,
    passwordHash: 'h',
    now: 1,
  });
  if (withKeys) await giveKeys(store.db, u.id);
  return u;
}

export function chatStoreContract(engine: string, open: () => Promise<Db>): void {
  describe(`ChatStore contract on ${engine}`, () => {
    let db: Db;
    let store: AccountStore;
    let chat: ChatStore;
    beforeAll(async () => {
      db = await open();
      await migrate(db);
      store = new AccountStore(db);
      chat = new ChatStore(db.kysely, chatWrites(db));
    });
    afterAll(async () => {
      await db?.close();
    });

    it('send: summaries, unread counting, idempotent retry, monotonic time, logged updates', async () => {
      const a = await user(store);
      const b = await user(store);
      const first = await sendSample(chat, db, a.id, b.id, 'msg-00001', 1, 1000);
      expect(first.duplicate).toBe(false);
      expect(first.updates.map((u) => [u.userId === a.id ? 'a' : 'b', u.seq, u.update.kind])).toEqual([
        ['a', 1, 'message'],
        ['b', 1, 'message'],
      ]);
      // Each user's entry carries the summary the message made, headed by the message.
      for (const u of first.updates) {
        if (u.update.kind !== 'message' || !u.update.chat) throw new Error('a send logs its summary');
        expect(summaryAfter(u.update.chat, u.update.message)).toEqual((await chat.chats(u.userId))[0]);
      }
      const retry = await sendSample(chat, db, a.id, b.id, 'msg-00001', 1, 5000);
      expect(retry).toMatchObject({ duplicate: true, updates: [] });
      expect(retry.message).toEqual(first.message);
      // A clock that went backwards still orders after the previous message.
      const second = await sendSample(chat, db, a.id, b.id, 'msg-00002', 2, 900);
      expect(second.message.timestamp).toBe(1001);
      expect(second.message).toMatchObject({ ct: sampleText(2), rev: 0, legacyText: null });
      const [bChat] = await chat.chats(b.id);
      expect(bChat).toMatchObject({ peerId: a.id, unreadCount: 2, archived: false, locked: false });
      expect(bChat?.last).toEqual({
        id: 'msg-00002',
        senderId: a.id,
        ct: sampleText(2),
        rev: 0,
        legacyText: null,
        deleted: false,
      });
      expect(bChat?.peer?.username).toBe(a.username);
      expect((await chat.chats(a.id))[0]?.unreadCount).toBe(0);
      await expect(sendSample(chat, db, b.id, a.id, 'msg-00001', 3, 1)).rejects.toBeInstanceOf(ChatError);
    });

    it('history pages newest-first windows in ascending order', async () => {
      const a = await user(store);
      const b = await user(store);
      for (let i = 0; i < 7; i++)
        await sendSample(chat, db, a.id, b.id, `hist-${String(i).padStart(4, '0')}`, i, 100 + i);
      const chatId = chatIdOf(a.id, b.id);
      const p1 = await chat.history(chatId, 3);
      expect(p1.messages.map((m) => m.ct)).toEqual([4, 5, 6].map((i) => sampleText(i)));
      expect(p1.hasMore).toBe(true);
      const oldest = p1.messages[0] as { timestamp: number; id: string };
      expect(p1.hasNewer).toBe(false);
      const p2 = await chat.history(chatId, 3, { before: { timestamp: oldest.timestamp, id: oldest.id } });
      expect(p2.messages.map((m) => m.ct)).toEqual([1, 2, 3].map((i) => sampleText(i)));
      const p3 = await chat.history(chatId, 3, { before: p2.messages[0] as ChatMessage });
      expect(p3).toMatchObject({ hasMore: false });
      expect(p3.messages.map((m) => m.ct)).toEqual([sampleText(0)]);
    });

    it('history pages around a message, and downwards from a position, to the newest', async () => {
      const a = await user(store);
      const b = await user(store);
      const ids = Array.from({ length: 9 }, (_, i) => `arnd-${String(i).padStart(4, '0')}`);
      for (const [i, id] of ids.entries()) await sendSample(chat, db, a.id, b.id, id, i, 100 + i);
      const chatId = chatIdOf(a.id, b.id);
      const cts = (p: { messages: ChatMessage[] }) => p.messages.map((m) => m.ct);
      // Half older, the message itself and the rest newer.
      const around = await chat.history(chatId, 4, { around: ids[3] as string });
      expect(cts(around)).toEqual([1, 2, 3, 4].map((i) => sampleText(i)));
      expect(around).toMatchObject({ hasMore: true, hasNewer: true });
      // At either end.
      expect(await chat.history(chatId, 4, { around: ids[0] as string })).toMatchObject({
        hasMore: false,
        hasNewer: true,
      });
      const end = await chat.history(chatId, 4, { around: ids[8] as string });
      expect(cts(end)).toEqual([6, 7, 8].map((i) => sampleText(i)));
      expect(end).toMatchObject({ hasMore: true, hasNewer: false });
      // Downwards from the window's newest until the newest message.
      const last = around.messages.at(-1) as ChatMessage;
      const down = await chat.history(chatId, 3, { after: last });
      expect(cts(down)).toEqual([5, 6, 7].map((i) => sampleText(i)));
      expect(down.hasNewer).toBe(true);
      const tail = await chat.history(chatId, 3, { after: down.messages.at(-1) as ChatMessage });
      expect(cts(tail)).toEqual([sampleText(8)]);
      expect(tail.hasNewer).toBe(false);
      // A message of another chat, or none: not found (its position is not told).
      const c = await user(store);
      await sendSample(chat, db, a.id, c.id, 'arnd-other', 0, 200);
      await expect(chat.history(chatId, 4, { around: 'arnd-other' })).rejects.toMatchObject({ code: 'not_found' });
      await expect(chat.history(chatId, 4, { around: 'arnd-none' })).rejects.toMatchObject({ code: 'not_found' });
    });

    it('history is in the order the messages were accepted, also within one millisecond', async () => {
      const a = await user(store);
      const b = await user(store);
      const chatId = chatIdOf(a.id, b.id);
      // One after another, both ways, all at the same clock reading.
      for (let i = 0; i < 60; i++) {
        const [from, to] = i % 2 === 0 ? [a, b] : [b, a];
        await sendSample(
          chat,
          db,
          from.id,
          to.id,
          `same-${String(i).padStart(4, '0')}-${Math.random().toString(36).slice(2, 8)}`,
          i,
          5000,
        );
      }
      const page = await chat.history(chatId, 100);
      expect(page.messages.map((m) => m.ct)).toEqual(Array.from({ length: 60 }, (_, i) => sampleText(i)));
      // All at once (parallel transactions on PostgreSQL): distinct times, and the chat
      // list's last message is the one history shows last.
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          sendSample(
            chat,
            db,
            i % 2 ? a.id : b.id,
            i % 2 ? b.id : a.id,
            `par-${String(i).padStart(4, '0')}`,
            100 + i,
            5000,
          ),
        ),
      );
      const all = (await chat.history(chatId, 200)).messages;
      expect(all).toHaveLength(100);
      for (let i = 1; i < all.length; i++) {
        expect(all[i]?.timestamp).toBeGreaterThan(all[i - 1]?.timestamp as number);
      }
      const newest = all.at(-1);
      for (const u of [a, b]) {
        const [summary] = await chat.chats(u.id);
        expect(summary).toMatchObject({ last: { id: newest?.id, ct: newest?.ct }, timestamp: newest?.timestamp });
      }
    });

    it('edit, delete, delivered and read change status as the spec says', async () => {
      const a = await user(store);
      const b = await user(store);
      const chatId = chatIdOf(a.id, b.id);
      await sendSample(chat, db, a.id, b.id, 'st-00001', 1, 10);
      expect(await chat.delivered(a.id, chatId, ['st-00001'], 11)).toEqual([]);
      const d = await chat.delivered(b.id, chatId, ['st-00001'], 12);
      expect(d.map((u) => u.update.kind)).toEqual(['message', 'message']);
      expect((await chat.message(chatId, 'st-00001'))?.deliveredAt).toBe(12);
      const r = await chat.read(b.id, a.id, 13);
      expect(r.map((u) => u.update.kind)).toEqual(['message', 'message', 'chat']);
      expect(await chat.message(chatId, 'st-00001')).toMatchObject({ status: 'read', readAt: 13, deliveredAt: 12 });
      expect((await chat.chats(b.id))[0]?.unreadCount).toBe(0);
      // An edit is the next revision under the current key; a stale or skipped one is refused.
      const edit = (rev: number, fill: number, by = a.id, now = 14) =>
        chat.edit(by, chatId, 'st-00001', sampleCiphertext(1, rev, 67, fill), now);
      await expect(edit(0, 2)).rejects.toMatchObject({ code: 'conflict' });
      await expect(edit(2, 2)).rejects.toMatchObject({ code: 'conflict' });
      await expect(chat.edit(a.id, chatId, 'st-00001', sampleCiphertext(2, 1, 67, 2), 14)).rejects.toMatchObject({
        code: 'rekey_required',
      });
      const e = await edit(1, 2);
      expect(e.message).toMatchObject({ ct: sampleText(2, 1), rev: 1, edited: true, status: 'sent', readAt: null });
      expect((await chat.chats(b.id))[0]?.last).toMatchObject({ id: 'st-00001', ct: sampleText(2, 1), rev: 1 });
      await expect(edit(2, 3, b.id, 15)).rejects.toMatchObject({ code: 'forbidden' });
      // A deletion is the sender's tombstone, the next revision under a key of the chat.
      await expect(chat.delete(a.id, chatId, 'st-00001', null, 16)).rejects.toMatchObject({ code: 'conflict' });
      await expect(chat.delete(a.id, chatId, 'st-00001', sampleCiphertext(1, 1, 67, 3), 16)).rejects.toMatchObject({
        code: 'conflict',
      });
      await expect(chat.delete(a.id, chatId, 'st-00001', sampleCiphertext(5, 2, 67, 3), 16)).rejects.toMatchObject({
        code: 'rekey_required',
      });
      const tombstone = sampleCiphertext(1, 2, 67, 3);
      const del = await chat.delete(a.id, chatId, 'st-00001', tombstone, 16);
      expect(del.message).toMatchObject({ ct: tombstone, rev: 2, legacyText: null, deleted: true, status: 'sent' });
      expect((await chat.chats(b.id))[0]?.last).toMatchObject({ id: 'st-00001', ct: tombstone, deleted: true });
      const again = sampleCiphertext(1, 3, 67, 3);
      await expect(chat.delete(a.id, chatId, 'st-00001', again, 17)).rejects.toMatchObject({ code: 'conflict' });
      await expect(edit(2, 3, a.id, 18)).rejects.toMatchObject({ code: 'conflict' });
    });

    it('sealed sends: the chat key rules (first key, shape, epochs, keys changed, no keys)', async () => {
      const a = await user(store);
      const b = await user(store);
      const chatId = chatIdOf(a.id, b.id);
      const send = (msgId: string, sealed: Parameters<ChatStore['send']>[3], from = a.id, to = b.id) =>
        chat.send(from, to, msgId, sealed, 20);
      const refused = async (msgId: string, sealed: Parameters<ChatStore['send']>[3], code: string) => {
        await expect(send(msgId, sealed)).rejects.toMatchObject({ code });
        expect(await chat.message(chatId, msgId)).toBeNull();
      };
      const key1 = sampleChatKey(chatId, 1, a.id);
      await refused('k-0001', { ct: sampleText(1) }, 'rekey_required');
      await refused('k-0002', { ct: sampleCiphertext(2), chatKey: sampleChatKey(chatId, 2, a.id) }, 'rekey_required');
      await refused('k-0003', { ct: sampleText(1), chatKey: sampleChatKey(chatId, 1, b.id) }, 'rekey_required');
      await refused('k-0004', { ct: sampleCiphertext(2), chatKey: key1 }, 'rekey_required');
      const staleSeals = { ...key1, seals: key1.seals.map((x) => ({ ...x, ukEpoch: 2 })) };
      await refused('k-0005', { ct: sampleText(1), chatKey: staleSeals }, 'rekey_required');
      const swapped = { ...key1, seals: [...key1.seals].reverse() };
      await refused('k-0006', { ct: sampleText(1), chatKey: swapped }, 'rekey_required');
      await refused('k-0007', { ct: sampleText(1, 1), chatKey: key1 }, 'invalid_frame');
      expect(await chat.chatKeys(chatId)).toEqual([]);
      await send('k-0008', { ct: sampleText(1), chatKey: key1 });
      expect(await chat.chatKeys(chatId)).toEqual([key1]);
      // The same epoch again (the peer's key, made at the same moment): taken.
      await refused('k-0009', { ct: sampleText(2), chatKey: sampleChatKey(chatId, 1, a.id) }, 'conflict');
      await send('k-0010', { ct: sampleText(2) });
      // b's keys change: epoch 1 is sealed to b's old key, so the next send makes epoch 2.
      await db.kysely.updateTable('user_keys').set({ uk_epoch: 2 }).where('user_id', '=', b.id).execute();
      await refused('k-0011', { ct: sampleText(3) }, 'rekey_required');
      // An edit brings no key: under the stale one it is refused too.
      const editK10 = (epoch: number) => chat.edit(a.id, chatId, 'k-0010', sampleCiphertext(epoch, 1, 67, 4), 22);
      await expect(editK10(1)).rejects.toMatchObject({ code: 'rekey_required' });
      await refused('k-0012', { ct: sampleCiphertext(2), chatKey: sampleChatKey(chatId, 2, a.id) }, 'rekey_required');
      const key2 = sampleChatKey(chatId, 2, a.id);
      key2.seals = key2.seals.map((x) => (x.userId === b.id ? { ...x, ukEpoch: 2 } : x));
      await send('k-0013', { ct: sampleCiphertext(2), chatKey: key2 });
      await send('k-0014', { ct: sampleCiphertext(2, 0, 67, 9) }, b.id, a.id);
      await expect(editK10(1)).rejects.toMatchObject({ code: 'rekey_required' });
      expect((await editK10(2)).message).toMatchObject({ ct: sampleCiphertext(2, 1, 67, 4), rev: 1 });
      expect((await chat.chatKeys(chatId)).map((k) => k.epoch)).toEqual([1, 2]);
      // Someone from before end-to-end encryption: nobody can seal to them, and they cannot seal.
      const legacy = await user(store, undefined, false);
      const toLegacy = { ct: sampleText(1), chatKey: sampleChatKey(chatIdOf(a.id, legacy.id), 1, a.id) };
      await expect(chat.send(a.id, legacy.id, 'k-0015', toLegacy, 21)).rejects.toMatchObject({
        code: 'recipient_no_keys',
      });
      const fromLegacy = { ct: sampleText(1), chatKey: sampleChatKey(chatIdOf(a.id, legacy.id), 1, legacy.id) };
      await expect(chat.send(legacy.id, a.id, 'k-0016', fromLegacy, 21)).rejects.toMatchObject({ code: 'forbidden' });
      expect(await chat.chatKeys(chatIdOf(a.id, legacy.id))).toEqual([]);
    });

    it('updatesSince replays in order and reports pruned gaps', async () => {
      const a = await user(store);
      const b = await user(store);
      // One entry per message and user.
      for (let i = 1; i <= 4; i++) await sendSample(chat, db, a.id, b.id, `log-0000${i}`, i, i);
      const all = await chat.updatesSince(b.id, 0);
      expect(all?.map((u) => u.seq)).toEqual([1, 2, 3, 4]);
      expect((await chat.updatesSince(b.id, 2))?.map((u) => u.seq)).toEqual([3, 4]);
      expect(await chat.updatesSince(b.id, 4)).toEqual([]);
      expect(await chat.updatesSince(b.id, 5)).toBeNull();
      await db.kysely.deleteFrom('user_updates').where('user_id', '=', b.id).where('seq', '<=', 2).execute();
      expect(await chat.updatesSince(b.id, 1)).toBeNull();
      expect(await chat.currentSeq(b.id)).toBe(4);
    });

    it('the log and the summaries hold messages by reference: no text in them, and a replay reads each message as its row is now', async () => {
      const a = await user(store);
      const b = await user(store);
      const one = (await sendSample(chat, db, a.id, b.id, 'ref-00001', 1, 1)).message;
      const two = (await sendSample(chat, db, a.id, b.id, 'ref-00002', 2, 2)).message;
      await chat.delivered(b.id, one.chatId, [one.id, two.id], 3);
      await chat.read(b.id, a.id, 4);
      const payloads = await db.kysely
        .selectFrom('user_updates')
        .select(['kind', 'payload'])
        .where('user_id', 'in', [a.id, b.id])
        .execute();
      // Each of the two messages' send, receipt and read is logged to both people, and the read logs the reader's summary.
      expect(payloads.map((p) => p.kind).sort()).toEqual([...Array(12).fill('message'), 'chat'].sort());
      for (const { payload } of payloads) {
        expect(payload).not.toContain(one.ct);
        expect(payload).not.toContain(two.ct);
      }
      // Summaries refer to the newest message too: no copy of its text, yet the chat list shows it.
      const summaries = await db.kysely
        .selectFrom('user_chats')
        .select('last_message')
        .where('chat_id', '=', one.chatId)
        .execute();
      expect(summaries).toEqual([{ last_message: null }, { last_message: null }]);
      for (const who of [a.id, b.id]) {
        expect((await chat.chats(who))[0]?.last).toMatchObject({ id: two.id, ct: two.ct, rev: 0, deleted: false });
        const replay = (await chat.updatesSince(who, 0)) ?? [];
        const messages = replay.flatMap((u) => (u.update.kind === 'message' ? [u.update.message] : []));
        // Every entry of a message, its send's included, is the message as it is now: read, with its text.
        expect(messages.length).toBe(6);
        for (const m of messages) expect(m).toMatchObject({ status: 'read', ct: m.id === one.id ? one.ct : two.ct });
        const chats = replay.flatMap((u) => (u.update.kind === 'chat' ? [u.update.chat] : []));
        for (const c of chats) expect(c.last).toMatchObject({ id: two.id, ct: two.ct, deleted: false });
      }
      // A row that is gone (its sender's account deleted) replays as deleted, with no text.
      await db.kysely.deleteFrom('messages').where('chat_id', '=', one.chatId).where('id', '=', two.id).execute();
      const after = (await chat.updatesSince(b.id, 0)) ?? [];
      const gone = after.flatMap((u) =>
        u.update.kind === 'message' && u.update.message.id === two.id ? [u.update.message] : [],
      );
      expect(gone.length).toBe(3);
      for (const m of gone) expect(m).toMatchObject({ deleted: true, ct: null, legacyText: null });
      const last = after.flatMap((u) => (u.update.kind === 'chat' ? [u.update.chat.last] : []));
      expect(last).toEqual([expect.objectContaining({ id: two.id, deleted: true, ct: null })]);
    });

    it('searchUsers: substring in any case, escapes wildcards, skips self and blocked, pages', async () => {
      const tag = Math.random().toString(36).slice(2, 7);
      const me = await user(store, `s${tag}_me`);
      await user(store, `s${tag}_Alpha`);
      await user(store, `s${tag}_beta`);
      const blocked = await user(store, `s${tag}_gamma`);
      await store.setFlags(blocked.id, { blocked: true });
      const page1 = await chat.searchUsers(me.id, `S${tag}`, undefined, 1);
      expect(page1.map((u) => u.username)).toEqual([`s${tag}_Alpha`]);
      const page2 = await chat.searchUsers(me.id, `s${tag}`, page1[0]?.username.toLowerCase(), 10);
      expect(page2.map((u) => u.username)).toEqual([`s${tag}_beta`]);
      expect(await chat.searchUsers(me.id, `s${tag}%`, undefined, 10)).toEqual([]);
      expect(await chat.searchUsers(me.id, `s${tag}_`, undefined, 10)).toHaveLength(2);
    });
  });
}

/** The chat half of the storage contract: same results on SQLite and PostgreSQL. */
import { chatIdOf, DELETED_TEXT } from '@app/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatError, ChatStore } from '../storage/chat-store.ts';
import type { Db } from '../storage/db.ts';
import { migrate } from '../storage/db.ts';
import { Store } from '../storage/store.ts';

/** A send that must store a message (no contact request is involved in these tests). */
async function sendOk(chat: ChatStore, ...args: Parameters<ChatStore['send']>) {
  const r = await chat.send(...args);
  if (!('message' in r)) throw new Error('unexpected contact request');
  return r;
}

let n = 0;
async function user(store: Store, username?: string) {
  n += 1;
  const tag = `${n}_${Math.random().toString(36).slice(2, 7)}`;
  return store.createUser({
    username: username ?? `c_${tag}`,
    email: `c_${tag}@example.com`,
    name: 'Chat User',
    phone: '5551234567',
    age: 30,
    passwordHash: 'h',
    now: 1,
  });
}

export function chatStoreContract(engine: string, open: () => Promise<Db>): void {
  describe(`ChatStore contract on ${engine}`, () => {
    let db: Db;
    let store: Store;
    let chat: ChatStore;
    beforeAll(async () => {
      db = await open();
      await migrate(db);
      store = new Store(db);
      chat = new ChatStore(db.kysely, db.sqlite ? { sqlite: db.sqlite } : {});
    });
    afterAll(async () => {
      await db?.close();
    });

    it('send: summaries, unread counting, idempotent retry, monotonic time, logged updates', async () => {
      const a = await user(store);
      const b = await user(store);
      const first = await sendOk(chat, a.id, b.id, 'msg-00001', 'one', 1000);
      expect(first.duplicate).toBe(false);
      expect(first.updates.map((u) => [u.userId === a.id ? 'a' : 'b', u.seq, u.update.kind])).toEqual([
        ['a', 1, 'message'],
        ['a', 2, 'chat'],
        ['b', 1, 'message'],
        ['b', 2, 'chat'],
      ]);
      const retry = await sendOk(chat, a.id, b.id, 'msg-00001', 'one', 5000);
      expect(retry).toMatchObject({ duplicate: true, updates: [] });
      expect(retry.message).toEqual(first.message);
      // A clock that went backwards still orders after the previous message.
      const second = await sendOk(chat, a.id, b.id, 'msg-00002', 'two', 900);
      expect(second.message.timestamp).toBe(1001);
      const [bChat] = await chat.chats(b.id);
      expect(bChat).toMatchObject({ peerId: a.id, lastMessage: 'two', unreadCount: 2, archived: false, locked: false });
      expect(bChat?.peer?.username).toBe(a.username);
      expect((await chat.chats(a.id))[0]?.unreadCount).toBe(0);
      await expect(sendOk(chat, b.id, a.id, 'msg-00001', 'steal', 1)).rejects.toBeInstanceOf(ChatError);
    });

    it('history pages newest-first windows in ascending order', async () => {
      const a = await user(store);
      const b = await user(store);
      for (let i = 0; i < 7; i++)
        await sendOk(chat, a.id, b.id, `hist-${String(i).padStart(4, '0')}`, `m${i}`, 100 + i);
      const chatId = chatIdOf(a.id, b.id);
      const p1 = await chat.history(chatId, 3);
      expect(p1.messages.map((m) => m.text)).toEqual(['m4', 'm5', 'm6']);
      expect(p1.hasMore).toBe(true);
      const oldest = p1.messages[0] as { timestamp: number; id: string };
      const p2 = await chat.history(chatId, 3, { timestamp: oldest.timestamp, id: oldest.id });
      expect(p2.messages.map((m) => m.text)).toEqual(['m1', 'm2', 'm3']);
      const p3 = await chat.history(chatId, 3, p2.messages[0]);
      expect(p3).toMatchObject({ hasMore: false });
      expect(p3.messages.map((m) => m.text)).toEqual(['m0']);
    });

    it('history is in the order the messages were accepted, also within one millisecond', async () => {
      const a = await user(store);
      const b = await user(store);
      const chatId = chatIdOf(a.id, b.id);
      // One after another, both ways, all at the same clock reading.
      for (let i = 0; i < 60; i++) {
        const [from, to] = i % 2 === 0 ? [a, b] : [b, a];
        await sendOk(
          chat,
          from.id,
          to.id,
          `same-${String(i).padStart(4, '0')}-${Math.random().toString(36).slice(2, 8)}`,
          `s${i}`,
          5000,
        );
      }
      const page = await chat.history(chatId, 100);
      expect(page.messages.map((m) => m.text)).toEqual(Array.from({ length: 60 }, (_, i) => `s${i}`));
      // All at once (parallel transactions on PostgreSQL): distinct times, and the chat
      // list's last message is the one history shows last.
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          sendOk(chat, i % 2 ? a.id : b.id, i % 2 ? b.id : a.id, `par-${String(i).padStart(4, '0')}`, `p${i}`, 5000),
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
        expect(summary).toMatchObject({ lastMessage: newest?.text, timestamp: newest?.timestamp });
      }
    });

    it('edit, delete, delivered and read change status as the spec says', async () => {
      const a = await user(store);
      const b = await user(store);
      const chatId = chatIdOf(a.id, b.id);
      await sendOk(chat, a.id, b.id, 'st-00001', 'hello', 10);
      expect(await chat.delivered(a.id, chatId, ['st-00001'], 11)).toEqual([]);
      const d = await chat.delivered(b.id, chatId, ['st-00001'], 12);
      expect(d.map((u) => u.update.kind)).toEqual(['message', 'message']);
      expect((await chat.message(chatId, 'st-00001'))?.deliveredAt).toBe(12);
      const r = await chat.read(b.id, a.id, 13);
      expect(r.map((u) => u.update.kind)).toEqual(['message', 'message', 'chat']);
      expect(await chat.message(chatId, 'st-00001')).toMatchObject({ status: 'read', readAt: 13, deliveredAt: 12 });
      expect((await chat.chats(b.id))[0]?.unreadCount).toBe(0);
      const e = await chat.edit(a.id, chatId, 'st-00001', 'hello!', 14);
      expect(e.message).toMatchObject({ text: 'hello!', edited: true, status: 'sent', readAt: null });
      expect((await chat.chats(b.id))[0]?.lastMessage).toBe('hello!');
      await expect(chat.edit(b.id, chatId, 'st-00001', 'x', 15)).rejects.toMatchObject({ code: 'forbidden' });
      const del = await chat.delete(a.id, chatId, 'st-00001', 16);
      expect(del.message).toMatchObject({ text: DELETED_TEXT, deleted: true, status: 'sent' });
      await expect(chat.delete(a.id, chatId, 'st-00001', 17)).rejects.toMatchObject({ code: 'conflict' });
    });

    it('updatesSince replays in order and reports pruned gaps', async () => {
      const a = await user(store);
      const b = await user(store);
      await sendOk(chat, a.id, b.id, 'log-00001', 'x', 1);
      await sendOk(chat, a.id, b.id, 'log-00002', 'y', 2);
      const all = await chat.updatesSince(b.id, 0);
      expect(all?.map((u) => u.seq)).toEqual([1, 2, 3, 4]);
      expect((await chat.updatesSince(b.id, 2))?.map((u) => u.seq)).toEqual([3, 4]);
      expect(await chat.updatesSince(b.id, 4)).toEqual([]);
      expect(await chat.updatesSince(b.id, 5)).toBeNull();
      await db.kysely.deleteFrom('user_updates').where('user_id', '=', b.id).where('seq', '<=', 2).execute();
      expect(await chat.updatesSince(b.id, 1)).toBeNull();
      expect(await chat.currentSeq(b.id)).toBe(4);
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

/**
 * import-rtdb run again on a newer export (issue 32, defects 3 and 4), on SQLite and on
 * PostgreSQL when TEST_DATABASE_URL is set: the newer messages of chats imported before come
 * in, each once, summaries move on only to a newer message (and come back to one who removed
 * the chat), and each moved summary is logged; chats with an account the original deleted are
 * imported with the peer as a deleted account, under the same id at every run.
 */
import { chatIdOf } from '@app/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../test/harness.ts';
import { type ImportEnv, importEnv } from '../test/import-env.ts';
import { chatKey, generateExport } from '../test/rtdb-export.ts';

type Box = Record<string, Record<string, unknown>>;

describe.each(ENGINES)('import-rtdb again on a newer export, on $name', ({ url }) => {
  let e: ImportEnv;
  beforeAll(async () => {
    e = await importEnv(url, 'again');
  });
  afterAll(async () => {
    await e?.close();
  });

  const db = () => e.t.server.ctx.store.db;
  const idOf = async (username: string) =>
    (await db().selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow()).id;
  const messageCount = async (chatId: string) =>
    Number(
      (
        await db()
          .selectFrom('messages')
          .select((eb) => eb.fn.countAll<string | number>().as('n'))
          .where('chat_id', '=', chatId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const chatLog = async (userId: string) =>
    (
      await db()
        .selectFrom('user_updates')
        .select('payload')
        .where('user_id', '=', userId)
        .where('kind', '=', 'chat')
        .execute()
    ).length;

  it('brings in what is new, message by message, and nothing twice; a deleted account stays one', async () => {
    const g = generateExport(21, 60);
    const [ada, bruno, chiara, dmitri] = g.uids as [string, string, string, string];
    // Chiara deleted her account in the original: her chats stay, and nothing else of hers comes.
    delete (g.tree.users as Record<string, unknown>)[chiara];
    const first = await e.run(e.file(g.tree), '--no-email');
    expect(first.code, first.out).toBe(0);
    expect(first.out).toMatch(/chats: 4 imported with 137 messages/);
    expect(first.out).toMatch(/2 chat\(s\) with an account deleted in the original/);
    expect(first.out).toMatch(/contacts\/\w+\/\w+: user \w+ was not imported/);
    const [adaId, brunoId, dmitriId] = [await idOf('ada_0'), await idOf('bruno_1'), await idOf('dmitri_3')];
    const withChiara = (await e.t.server.ctx.chat.chats(adaId)).find((c) => c.peer === null);
    expect(withChiara?.last?.legacyText).toBeTruthy();
    const chiaraId = withChiara?.peerId as string;
    expect(await messageCount(chatIdOf(adaId, chiaraId))).toBe(40);
    // Chiara's half of the chat with Bruno is the same id: one deleted account, not two.
    expect((await e.t.server.ctx.chat.chats(brunoId)).find((c) => c.peer === null)?.peerId).toBe(chiaraId);
    expect(await db().selectFrom('users').select('id').where('id', '=', chiaraId).executeTakeFirst()).toBeUndefined();

    // Meanwhile in Parley: Ada's chat with Dmitri moved on past anything the export will bring
    // (as a message sent in Parley would have moved it), and Dmitri removed that chat.
    const lockedChat = chatIdOf(adaId, dmitriId);
    await db()
      .updateTable('user_chats')
      .set({ timestamp: Date.UTC(2030, 0, 1) })
      .where('user_id', '=', adaId)
      .where('chat_id', '=', lockedChat)
      .execute();
    await db().deleteFrom('user_chats').where('user_id', '=', dmitriId).where('chat_id', '=', lockedChat).execute();
    const brunoBefore = (await e.t.server.ctx.chat.chats(brunoId)).find((c) => c.peerId === adaId);
    const logBefore = { ada: await chatLog(adaId), bruno: await chatLog(brunoId), dmitri: await chatLog(dmitriId) };

    // The newer export: Ada and Bruno wrote three more (one of them dated inside the old
    // history), Ada and Dmitri one more, and Chiara one more to Bruno.
    const messages = g.tree.messages as Box;
    const big = messages[chatKey(ada, bruno)] as Box;
    const times = Object.values(big)
      .map((m) => Number(m.timestamp))
      .sort((x, y) => x - y);
    const newest = times.at(-1) as number;
    // Between two messages of the old history.
    const gap = times.findIndex((t, i) => (times[i + 1] ?? 0) - t >= 2);
    big.zNew1 = { senderId: ada, text: 'newer one', timestamp: newest + 10 };
    big.zNew2 = { senderId: ada, text: 'newer two', timestamp: newest + 20 };
    big.zOld = { senderId: bruno, text: 'late to the export', timestamp: (times[gap] as number) + 1 };
    (messages[chatKey(ada, dmitri)] as Box).zNew = { senderId: dmitri, text: 'still there?', timestamp: newest + 30 };
    (messages[chatKey(bruno, chiara)] as Box).zNew = { senderId: chiara, text: 'bye', timestamp: newest + 40 };
    const second = await e.run(e.file(g.tree), '--no-email');
    expect(second.code, second.out).toBe(0);
    expect(second.out).toMatch(/chats: 0 imported with 0 messages, 4 imported before/);
    expect(second.out).toMatch(/newer messages: 5 in 3 of the chats imported before/);

    const bigChat = chatIdOf(adaId, brunoId);
    expect(await messageCount(bigChat)).toBe(63);
    const page = await e.t.server.ctx.chat.history(bigChat, 100);
    const texts = page.messages.map((m) => m.legacyText);
    expect(texts.slice(-2)).toEqual(['newer one', 'newer two']);
    expect(texts[gap + 1]).toBe('late to the export');
    // Bruno's summary moves to the newest, with two more unread (the old-dated one is not newer).
    const brunoAfter = (await e.t.server.ctx.chat.chats(brunoId)).find((c) => c.peerId === adaId);
    expect(brunoAfter?.last?.legacyText).toBe('newer two');
    expect(brunoAfter?.unreadCount).toBe((brunoBefore?.unreadCount ?? 0) + 2);
    expect((await e.t.server.ctx.chat.chats(adaId)).find((c) => c.peerId === brunoId)?.unreadCount).toBe(0);
    // Ada's newer summary stays; Dmitri gets the chat back, showing the new message.
    expect((await e.t.server.ctx.chat.chats(adaId)).find((c) => c.chatId === lockedChat)?.last?.legacyText).not.toBe(
      'still there?',
    );
    expect((await e.t.server.ctx.chat.chats(dmitriId)).find((c) => c.chatId === lockedChat)?.last?.legacyText).toBe(
      'still there?',
    );
    // Logged for whoever's summary moved (clients see it when they next connect).
    expect(await chatLog(brunoId)).toBe(logBefore.bruno + 2);
    expect(await chatLog(adaId)).toBe(logBefore.ada + 1);
    expect(await chatLog(dmitriId)).toBe(logBefore.dmitri + 1);
    // Chiara's new message, in the same chat with Bruno.
    const fromChiara = await e.t.server.ctx.chat.history(chatIdOf(brunoId, chiaraId), 100);
    expect(fromChiara.messages.at(-1)).toMatchObject({ senderId: chiaraId, legacyText: 'bye' });

    const third = await e.run(e.file(g.tree), '--no-email');
    expect(third.code, third.out).toBe(0);
    expect(third.out).not.toMatch(/newer messages/);
    expect(await messageCount(bigChat)).toBe(63);
    expect(await chatLog(brunoId)).toBe(logBefore.bruno + 2);
  }, 60_000);
});

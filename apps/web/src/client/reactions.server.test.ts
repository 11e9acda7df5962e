/**
 * Reactions with the real ChatClient against a real server (SQLite and PostgreSQL): sealed
 * in one tab, opened in the peer's, one per person (the same emoji again takes it back,
 * another replaces it), loaded with history in a new tab, and told as activity. A reaction
 * the server moved to another message does not open there: it is not shown.
 */
import path from 'node:path';
import { ENGINES } from '@app/server/test';
import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { newUser, online, shown, type TestTab, until, useTabServer } from '@/test/chat-clients';
import type { Alert } from './alerts';

function emojiOf(tab: TestTab, chatId: string, msgId: string): string[] {
  return tab.client.reactions
    .of(chatId, msgId)
    .map((r) => `${r.userId === tab.client.userId ? 'me' : 'peer'}:${r.emoji}`);
}

describe.each(ENGINES)('reactions in the web client ($name)', ({ url }) => {
  const { t, tab, pair } = useTabServer(url, 'reactclient');

  /** Moves a stored reaction to another message (as someone with the database could). */
  async function moveStored(chatId: string, from: string, to: string): Promise<void> {
    if (url === '') {
      const db = new SQLite(path.join(t.dataDir, 'parley.sqlite'));
      try {
        db.pragma('busy_timeout = 5000');
        db.prepare('update reactions set msg_id = ? where chat_id = ? and msg_id = ?').run(to, chatId, from);
      } finally {
        db.close();
      }
      return;
    }
    await t.server.ctx.chat.db
      .updateTable('reactions')
      .set({ msg_id: to })
      .where('chat_id', '=', chatId)
      .where('msg_id', '=', from)
      .execute();
  }

  it('a reaction reaches the peer live and after a reload; the same emoji takes it back, another replaces it', async () => {
    const [alice, bob, a, b] = await pair();
    const alerts: Alert[] = [];
    a.client.onAlert((x) => alerts.push(x));
    a.client.sendMessage(bob.id, 'Lunch at noon?');
    await until(() => shown(b, alice.id).length === 1, 'the message');
    const m = shown(b, alice.id)[0];
    if (!m) throw new Error('no message');

    await b.client.react(m, '👍');
    await until(() => emojiOf(a, m.chatId, m.id).length === 1, 'the reaction in Alice’s tab');
    expect(emojiOf(a, m.chatId, m.id)).toEqual(['peer:👍']);
    expect(emojiOf(b, m.chatId, m.id)).toEqual(['me:👍']);
    expect(alerts).toContainEqual(expect.objectContaining({ kind: 'reaction', locked: false }));
    // The server holds the blob, not the emoji.
    const page = await t.server.ctx.chat.reactions(m.chatId, [m.id]);
    expect(JSON.stringify(page)).not.toContain('👍');

    await b.client.react(m, '👍');
    await until(() => emojiOf(a, m.chatId, m.id).length === 0, 'the reaction taken back');
    await b.client.react(m, '❤️');
    await a.client.react(m, '😂');
    await until(() => emojiOf(a, m.chatId, m.id).length === 2, 'two reactions');

    // A new tab loads them with the history.
    const a2 = tab(alice);
    await online(a2);
    a2.client.openConversation(bob.id);
    await until(() => shown(a2, bob.id).length === 1 && emojiOf(a2, m.chatId, m.id).length === 2, 'the page');
    expect(emojiOf(a2, m.chatId, m.id).sort()).toEqual(['me:😂', 'peer:❤️']);
  });

  it('a reaction the server moved to another message does not open there, and is not shown', async () => {
    const [alice, bob] = [await newUser(t), await newUser(t)];
    const a = tab(alice);
    const b = tab(bob);
    await Promise.all([online(a), online(b)]);
    b.client.openConversation(alice.id);
    a.client.sendMessage(bob.id, 'first');
    a.client.sendMessage(bob.id, 'second');
    await until(() => shown(b, alice.id).length === 2, 'both messages');
    const [first, second] = shown(b, alice.id) as [
      NonNullable<ReturnType<typeof shown>[0]>,
      NonNullable<ReturnType<typeof shown>[0]>,
    ];
    await b.client.react(first, '👍');
    await moveStored(first.chatId, first.id, second.id);

    const a2 = tab(alice);
    await online(a2);
    a2.client.openConversation(bob.id);
    await until(() => shown(a2, bob.id).length === 2, 'the page');
    // Opened (or refused) once the keys are fetched: give it the time a real open takes.
    await a2.client.reactions.opened({
      chatId: first.chatId,
      msgId: second.id,
      userId: bob.id,
      ct: (await t.server.ctx.chat.reactions(first.chatId, [second.id]))[0]?.ct ?? null,
      at: 0,
    });
    expect(emojiOf(a2, first.chatId, second.id)).toEqual([]);
    expect(emojiOf(a2, first.chatId, first.id)).toEqual([]);
  });
});

/**
 * Messages from before end-to-end encryption, re-encrypted by the real ChatClient against
 * a real server (SQLite, and PostgreSQL when TEST_DATABASE_URL is set): loading a page
 * hands this user's own legacy messages to the background migration, the server ends up
 * holding ciphertext for them (and still the peer's own, which only the peer may seal),
 * and both people read the same words throughout.
 */
import { chatIdOf } from '@app/protocol';
import { ENGINES, messageRow } from '@app/server/test';
import { describe, expect, it } from 'vitest';
import { shownText } from '@/client/crypto/message-crypto';
import {
  newUser,
  online,
  opened,
  type TestTab,
  type TestUser,
  textsOf,
  until,
  useTabServer,
} from '@/test/chat-clients';

describe.each(ENGINES)('re-encrypting legacy messages in the background ($name)', ({ url }) => {
  const { t, tab } = useTabServer(url, 'legacymigrate');

  /** The tab's texts of the chat with `peerId`, once its page of `n` messages has loaded and opened. */
  async function loaded(x: TestTab, peerId: string, n: number): Promise<string[]> {
    await until(() => x.client.getConversation(peerId).messages.length === n, `${n} messages`);
    return textsOf(x, peerId);
  }

  /** An account upgraded from before encryption: its sealed keys say so, from now on. */
  async function legacyUser(): Promise<TestUser> {
    const u = await newUser(t);
    const at = Date.now();
    return { ...u, contents: { ...u.contents, started: { at, legacy: true, tombstones: at } } };
  }

  it("each sender's tab seals its own legacy messages; the server keeps no text of theirs; both read the same", async () => {
    const [alice, bob] = [await legacyUser(), await legacyUser()];
    const a = tab(alice);
    await online(a);
    a.client.openConversation(bob.id);
    expect(a.client.sendMessage(bob.id, 'first sealed')).toBeNull();
    const db = t.server.ctx.chat.db;
    const chatId = chatIdOf(alice.id, bob.id);
    await until(() => a.client.getConversation(bob.id).messages.some((m) => m.ct !== null && !m.pending), 'the send');
    const sealed = a.client.getConversation(bob.id).messages[0];
    const legacy = [
      { id: 'legacy-1', from: alice, to: bob, text: 'plain one from alice' },
      { id: 'legacy-2', from: bob, to: alice, text: 'plain one from bob' },
      { id: 'legacy-3', from: alice, to: bob, text: 'plain two from alice 🙂' },
    ];
    for (const [i, m] of legacy.entries()) {
      const at = (sealed?.timestamp ?? Date.now()) - 10_000 + i;
      await db
        .insertInto('messages')
        .values(messageRow(chatId, m.id, m.from.id, m.to.id, at, { text: m.text }))
        .execute();
    }
    const rows = () =>
      db.selectFrom('messages').select(['id', 'sealed', 'text']).where('chat_id', '=', chatId).orderBy('id').execute();

    // Alice loads the conversation in a new tab: her two legacy messages are sealed in the background.
    const a2 = tab(alice);
    await online(a2);
    a2.client.openConversation(bob.id);
    const want = ['plain one from alice', 'plain one from bob', 'plain two from alice 🙂', 'first sealed'];
    expect(await loaded(a2, bob.id, 4)).toEqual(want);
    let now = await rows();
    for (let i = 0; i < 100 && now.filter((r) => r.sealed === 1).length < 3; i++) {
      await new Promise((r) => setTimeout(r, 50));
      now = await rows();
    }
    const byId = new Map(now.map((r) => [r.id, r]));
    expect(byId.get('legacy-1')?.sealed).toBe(1);
    expect(byId.get('legacy-3')?.sealed).toBe(1);
    expect(byId.get('legacy-1')?.text).not.toContain('plain');
    // Bob's stays in the clear until Bob's own tab seals it.
    expect(byId.get('legacy-2')).toMatchObject({ sealed: 0, text: 'plain one from bob' });
    expect(await textsOf(a2, bob.id)).toEqual(want);

    const b = tab(bob);
    await online(b);
    b.client.openConversation(alice.id);
    expect(await loaded(b, alice.id, 4)).toEqual(want);
    for (let i = 0; i < 100 && (await rows()).some((r) => r.sealed === 0); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await rows()).map((r) => r.sealed)).toEqual([1, 1, 1, 1]);
    // A third tab of Bob's opens everything from ciphertext, and still says which were once in the clear.
    const b2 = tab(bob);
    await online(b2);
    b2.client.openConversation(alice.id);
    expect(await loaded(b2, alice.id, 4)).toEqual(want);
    const marks = (await opened(b2, b2.client.getConversation(alice.id).messages)).map((x) =>
      x.kind === 'text' ? x.clear === true : null,
    );
    expect(marks).toEqual([true, true, true, false]);
  });

  it('a row in the clear the server slips into a chat is not believed, nor sealed as the sender’s', async () => {
    // Carol was made with keys: nothing of hers was ever in the clear. Dan upgraded, but after the row's time.
    const [carol, dan] = [await newUser(t), await legacyUser()];
    const c = tab(carol);
    await online(c);
    c.client.openConversation(dan.id);
    expect(c.client.sendMessage(dan.id, 'real one')).toBeNull();
    await until(() => c.client.getConversation(dan.id).messages.some((m) => m.ct !== null && !m.pending), 'the send');
    const db = t.server.ctx.chat.db;
    const chatId = chatIdOf(carol.id, dan.id);
    const planted = [
      { id: 'planted-1', from: carol, to: dan, at: Date.now() - 60_000 },
      { id: 'planted-2', from: dan, to: carol, at: Date.now() + 1 },
    ];
    for (const m of planted) {
      await db
        .insertInto('messages')
        .values(messageRow(chatId, m.id, m.from.id, m.to.id, m.at, { text: `injected ${m.id}` }))
        .execute();
    }
    const unverified = "This message couldn't be verified";
    const seen = async (who: TestUser, peer: TestUser) => {
      const x = tab(who);
      await online(x);
      x.client.openConversation(peer.id);
      await until(() => x.client.getConversation(peer.id).messages.length === 3, '3 messages');
      return opened(x, x.client.getConversation(peer.id).messages);
    };
    // Carol's keys say she never had messages in the clear: neither row is believed.
    expect((await seen(carol, dan)).map(shownText)).toEqual([unverified, 'real one', unverified]);
    // Dan's say he had some, until he got keys: the older row may be one of them (marked as
    // not encrypted), the newer cannot.
    const danSees = await seen(dan, carol);
    expect(danSees.map(shownText)).toEqual(['injected planted-1', 'real one', unverified]);
    expect(danSees[0]).toEqual({ kind: 'text', text: 'injected planted-1', clear: true });
    await new Promise((r) => setTimeout(r, 300));
    const rows = await db.selectFrom('messages').select(['id', 'sealed']).where('id', 'like', 'planted-%').execute();
    expect(rows.map((r) => r.sealed)).toEqual([0, 0]);
  });

  it('after sign-in, every own message in the clear is re-encrypted without a chat being opened, with its progress', async () => {
    const [alice, bob, carol] = [await legacyUser(), await legacyUser(), await newUser(t)];
    const db = t.server.ctx.chat.db;
    const before = Date.now() - 60_000;
    // Chats with no key at all, as an import leaves them; Carol's account is deleted since.
    const rows = [
      { id: 'sweep-a-1', from: alice, to: bob, text: 'plain to bob 1' },
      { id: 'sweep-b-1', from: bob, to: alice, text: 'plain from bob' },
      { id: 'sweep-a-2', from: alice, to: bob, text: 'plain to bob 2' },
      { id: 'sweep-a-3', from: alice, to: bob, text: 'plain to bob 3' },
      { id: 'sweep-c-1', from: alice, to: carol, text: 'plain to carol 1' },
      { id: 'sweep-c-2', from: alice, to: carol, text: 'plain to carol 2' },
    ];
    for (const [i, m] of rows.entries()) {
      const chatId = chatIdOf(m.from.id, m.to.id);
      await db
        .insertInto('messages')
        .values(messageRow(chatId, m.id, m.from.id, m.to.id, before + i, { text: m.text }))
        .execute();
    }
    await t.server.ctx.store.deleteUser(carol.id);
    const a = tab(alice);
    await online(a);
    await until(() => {
      const p = a.client.legacy.progress();
      return p.total === 5 && !p.running && p.done + p.waiting === 5;
    }, 'the sweep');
    expect(a.client.legacy.progress()).toEqual({ total: 5, done: 3, waiting: 2, running: false });
    const sealed = await db
      .selectFrom('messages')
      .select(['id', 'sealed'])
      .where('id', 'like', 'sweep-%')
      .orderBy('id')
      .execute();
    expect(sealed.map((r) => [r.id, r.sealed])).toEqual([
      ['sweep-a-1', 1],
      ['sweep-a-2', 1],
      ['sweep-a-3', 1],
      ['sweep-b-1', 0],
      ['sweep-c-1', 0],
      ['sweep-c-2', 0],
    ]);
    // The chat got its first key from the sweep, and Bob reads the same words.
    const keys = await db
      .selectFrom('chat_keys')
      .select('epoch')
      .where('chat_id', '=', chatIdOf(alice.id, bob.id))
      .execute();
    expect(keys.map((k) => Number(k.epoch))).toEqual([1]);
    const b = tab(bob);
    await online(b);
    b.client.openConversation(alice.id);
    expect(await loaded(b, alice.id, 4)).toEqual([
      'plain to bob 1',
      'plain from bob',
      'plain to bob 2',
      'plain to bob 3',
    ]);
    // A second tab of Alice's finds nothing left but what waits.
    const a2 = tab(alice);
    await online(a2);
    await until(
      () => a2.client.legacy.progress().total === 2 && !a2.client.legacy.progress().running,
      'the second sweep',
    );
    expect(a2.client.legacy.progress()).toEqual({ total: 2, done: 0, waiting: 2, running: false });
  });
});

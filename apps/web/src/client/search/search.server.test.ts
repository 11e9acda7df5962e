/**
 * Message search with the real ChatClient against a real server (SQLite and PostgreSQL):
 * history read in the background, page by page, until every chat is read to its start;
 * the index sealed at rest and read back by a reloaded tab before it asks the server for
 * anything; an edit and a deletion seen in the chat change it; locked chats are left out of
 * a search from the chat list.
 */
import { chatIdOf } from '@app/protocol';
import { ENGINES, LOOSE_LIMITS, Sealer, WsTestClient } from '@app/server/test';
import { describe, expect, it } from 'vitest';
import { newUser, online, shown, type TestTab, until, useTabServer } from '@/test/chat-clients';
import { testSealing } from '@/test/local-sealing';
import { memorySearch } from '@/test/memory-search';

/** What a screen showing the tab's conversation with `peerId` does: asks what each message says. */
function render(tab: TestTab, peerId: string): void {
  for (const m of tab.client.getConversation(peerId).messages) tab.client.crypto.shown(m);
}

describe.each(ENGINES)('message search ($name)', ({ url }) => {
  // A writer sends 120 messages at once: not paced per socket (past its burst a frame is refused).
  const { t, tab, pair } = useTabServer(url, 'search', {
    rateLimits: { ...LOOSE_LIMITS, userWritesPerSecond: 1000, userWriteBurst: 10_000 },
    wsFramesPerSecond: 100_000,
    wsBurst: 100_000,
  });

  it('indexes the history in the background, keeps it sealed at rest, and a reloaded tab searches it at once', async () => {
    const [alice, bob] = [await newUser(t), await newUser(t)];
    // Bob writes from a socket of his (sealed as a browser seals), 40 at a time.
    const ws = await WsTestClient.connect(t, bob.cookie);
    ws.sealer = Sealer.register(bob.id, bob.contents);
    try {
      await ws.sendMessage(alice.id, 'hay 0');
      for (let from = 1; from < 120; from += 40) {
        await Promise.all(
          Array.from({ length: Math.min(40, 120 - from) }, (_, k) =>
            ws.sendMessage(alice.id, from + k === 7 ? 'The Needle in the haystack' : `hay ${from + k}`),
          ),
        );
      }
    } finally {
      await ws.close();
    }

    const { rows, store } = memorySearch();
    const sealing = testSealing();
    const a = tab(alice, { searchStore: store, localSealing: sealing });
    await online(a);
    // Nothing opened on screen: the background reads all three pages.
    await until(() => a.client.search.index.size === 120, 'the history indexed', 20_000);
    const status = a.client.search.getStatus();
    expect(status).toMatchObject({ done: 1, total: 1 });
    const [hit] = a.client.search.search('needle');
    expect(hit?.message).toMatchObject({ senderId: bob.id, text: 'The Needle in the haystack' });
    expect(a.client.search.search('hay', { chatId: chatIdOf(alice.id, bob.id), limit: 200 })).toHaveLength(120);

    // At rest: sealed, and nothing of any text.
    await until(() => rows.size === 1, 'the index stored', 5000);
    // (Spaces: never in base64url, so a match would be a text.)
    expect(JSON.stringify([...rows.values()])).not.toMatch(/Needle in the|hay \d/);

    // A reloaded tab (same storage, same browser key) finds it before reading anything.
    a.stop();
    const a2 = tab(alice, { searchStore: store, localSealing: sealing });
    await a2.client.search.load();
    expect(a2.client.search.search('needle', { chatId: chatIdOf(alice.id, bob.id) })).toHaveLength(1);
    // From the list, once the list says the chat is there (and not locked).
    await online(a2);
    await until(() => a2.client.search.search('needle').length === 1, 'the list search');
    // Another browser key (keys wiped at a sign-out since) opens nothing.
    const a3 = tab(alice, { searchStore: store, localSealing: testSealing() });
    await a3.client.search.load();
    expect(a3.client.search.index.size).toBe(0);
  }, 60_000);

  it('an edit and a deletion shown in the chat change the index; a locked chat is not searched from the list', async () => {
    const [alice, bob, a, b] = await pair();
    b.client.sendMessage(alice.id, 'meet at the lighthouse');
    b.client.sendMessage(alice.id, 'bring a torch');
    await until(() => shown(b, alice.id).length === 2, 'sent');
    await until(() => {
      render(a, bob.id);
      return a.client.search.search('lighthouse').length === 1;
    }, 'indexed');
    const [first, second] = shown(b, alice.id) as [
      NonNullable<ReturnType<typeof shown>[0]>,
      NonNullable<ReturnType<typeof shown>[0]>,
    ];
    await b.client.editMessage(first, 'meet at the harbour');
    await until(() => shown(a, bob.id)[0]?.rev === 1, 'the edit');
    // What Alice's screen reads of it goes into the index.
    await until(() => {
      render(a, bob.id);
      return a.client.search.search('harbour').length === 1;
    }, 'the edit indexed');
    expect(a.client.search.search('lighthouse')).toEqual([]);
    await b.client.deleteMessage(second);
    await until(() => {
      render(a, bob.id);
      return a.client.search.search('torch').length === 0;
    }, 'the deletion');

    // Locked: not searched from the chat list, still from inside the chat.
    const chatId = chatIdOf(alice.id, bob.id);
    const res = await fetch(`${t.url}/api/me/pin`, {
      method: 'PUT',
      headers: { cookie: `sid=${alice.cookie}`, origin: t.url, 'content-type': 'application/json' },
      body: JSON.stringify({ pin: '123456' }),
    });
    expect(res.status).toBe(200);
    await a.client.socket.request('chatFlags', { peerId: bob.id, locked: true });
    await until(() => a.client.chatWith(bob.id)?.locked === true, 'locked');
    expect(a.client.search.search('harbour')).toEqual([]);
    expect(a.client.search.search('harbour', { chatId })).toHaveLength(1);
  });
});

/**
 * A jump far back with the real ChatClient against a real server (SQLite and PostgreSQL):
 * the page around the message is loaded instead of every page between, as a window away
 * from the newest that is paged down until it meets it; new messages wait outside it; the
 * newest comes back in its place; a jump a page back joins what is loaded; a message the
 * chat does not have (or another chat's) is missing.
 */
import { HISTORY_PAGE } from '@app/protocol';
import { ENGINES, LOOSE_LIMITS, Sealer, WsTestClient } from '@app/server/test';
import { describe, expect, it } from 'vitest';
import { newUser, online, type TestUser, until, useTabServer } from '@/test/chat-clients';

describe.each(ENGINES)('a conversation window far back ($name)', ({ url }) => {
  const { t, tab } = useTabServer(url, 'window', {
    rateLimits: { ...LOOSE_LIMITS, userWritesPerSecond: 1000, userWriteBurst: 10_000 },
    wsFramesPerSecond: 100_000,
    wsBurst: 100_000,
  });

  /** `n` messages from `from` to `to`, in order; their ids. */
  async function history(from: TestUser, to: TestUser, n: number): Promise<string[]> {
    const ws = await WsTestClient.connect(t, from.cookie);
    ws.sealer = Sealer.register(from.id, from.contents);
    const ids: string[] = [];
    try {
      for (let i = 0; i < n; i++) ids.push((await ws.sendMessage(to.id, `line ${i}`)).id);
    } finally {
      await ws.close();
    }
    return ids;
  }

  it('loads the page around a far message, pages down to the newest, and goes back to the newest at once', async () => {
    const [alice, bob, carol] = [await newUser(t), await newUser(t), await newUser(t)];
    const ids = await history(bob, alice, 4 * HISTORY_PAGE);
    const [elsewhere] = await history(carol, alice, 1);
    const a = tab(alice);
    await online(a);
    a.client.openConversation(bob.id);
    const view = () => a.client.getConversation(bob.id);
    const loaded = () => view().messages.map((m) => m.id);
    await until(() => view().status === 'ready', 'the newest page');
    expect(loaded()).toEqual(ids.slice(-HISTORY_PAGE));

    // 60 is two pages back from the newest page: one request, its own window.
    expect(await a.client.paging.loadAround(bob.id, ids[60] as string)).toBe('found');
    expect(loaded()).toEqual(ids.slice(60 - HISTORY_PAGE / 2, 60 + HISTORY_PAGE / 2));
    expect(view()).toMatchObject({ hasMore: true, hasNewer: true, loadingOlder: false });

    // A new message does not land at the window's end: it is past it.
    const b = tab(bob);
    await online(b);
    b.client.sendMessage(alice.id, 'while you were reading');
    await until(() => a.client.chatWith(bob.id)?.unreadCount === ids.length + 1, 'the new message in the list');
    expect(loaded()).toEqual(ids.slice(35, 85));

    // Paged down, it meets the newest, new message and all.
    while (view().hasNewer) await a.client.paging.loadNewer(bob.id);
    const all = loaded();
    expect(all.slice(0, -1)).toEqual(ids.slice(35));
    expect(all).toHaveLength(ids.length - 35 + 1);

    // Far back again, then back to the newest page in its place.
    expect(await a.client.paging.loadAround(bob.id, ids[5] as string)).toBe('found');
    expect(view()).toMatchObject({ hasMore: false, hasNewer: true });
    expect(loaded()[0]).toBe(ids[0]);
    a.client.paging.showNewest(bob.id);
    await until(() => !view().hasNewer, 'the newest page');
    expect(loaded()).toHaveLength(HISTORY_PAGE);
    expect(loaded().slice(0, -1)).toEqual(ids.slice(-HISTORY_PAGE + 1));

    // A page back from the newest: joined to it (the newest stays loaded).
    expect(await a.client.paging.loadAround(bob.id, ids[130] as string)).toBe('found');
    expect(view()).toMatchObject({ hasNewer: false });
    expect(loaded()[0]).toBe(ids[130 - HISTORY_PAGE / 2]);
    expect(loaded().at(-2)).toBe(ids.at(-1));

    // Another chat's message, or none at all: missing, and nothing changes.
    const before = loaded();
    expect(await a.client.paging.loadAround(bob.id, elsewhere as string)).toBe('missing');
    expect(await a.client.paging.loadAround(bob.id, 'no-such-message')).toBe('missing');
    expect(loaded()).toEqual(before);
  }, 60_000);
});

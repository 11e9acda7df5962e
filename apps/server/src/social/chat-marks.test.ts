/**
 * A user's own marks on a chat (protocol chat-flags.ts): pinned (at most three, counted
 * atomically), muted for 8 hours, a week or for good, and marked unread until read. Against
 * a real server with raw WebSocket frames, on SQLite and on PostgreSQL when
 * TEST_DATABASE_URL is set: each mark is the user's alone, reaches every socket of theirs,
 * and is refused where it has no chat to mark.
 */
import { CHAT_FLAGS_MSG, MUTED_ALWAYS, PINNED_CHATS_MAX } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { ENGINES, LOOSE_LIMITS, useTestServer } from '../test/harness.ts';
import { connectedPerson, type Person, setPin, settle, waitUpdate } from '../test/people.ts';
import { WsTestClient } from '../test/ws-client.ts';

const HOUR = 60 * 60 * 1000;

describe.each(ENGINES)('on $name', ({ url }) => {
  const t = useTestServer({ engine: url, tag: 'marks', config: { rateLimits: LOOSE_LIMITS } });
  const person = () => connectedPerson(t);

  /** `me` with a chat with each of `n` new people (each wrote once). */
  async function withChats(n: number): Promise<{ me: Person; peers: Person[] }> {
    const me = await person();
    const peers = await Promise.all(Array.from({ length: n }, () => person()));
    for (const p of peers) await p.ws.sendMessage(me.user.id, 'hello');
    return { me, peers };
  }

  it('pins up to three chats, counted atomically across sockets; the fourth is refused; unpinning frees a place', async () => {
    const { me, peers } = await withChats(PINNED_CHATS_MAX + 1);
    const tab = await WsTestClient.connect(t, me.client.cookie);
    // All four at once, from two sockets: exactly three are pinned.
    const tries = await Promise.allSettled(
      peers.map((p, i) => (i % 2 ? tab : me.ws).request('chatFlags', { peerId: p.user.id, pinned: true })),
    );
    expect(tries.filter((r) => r.status === 'fulfilled')).toHaveLength(PINNED_CHATS_MAX);
    const refused = tries.find((r) => r.status === 'rejected');
    expect(refused?.status === 'rejected' && String(refused.reason)).toContain(CHAT_FLAGS_MSG.pinLimit);
    const pinned = (await me.ws.request('chats')).chats.filter((c) => c.pinnedAt !== null);
    expect(pinned).toHaveLength(PINNED_CHATS_MAX);

    const left = peers.find((p) => !pinned.some((c) => c.peerId === p.user.id)) as Person;
    expect(await me.ws.requestError('chatFlags', { peerId: left.user.id, pinned: true })).toMatchObject({
      code: 'forbidden',
      message: CHAT_FLAGS_MSG.pinLimit,
    });
    const seq = tab.lastSeq;
    await me.ws.request('chatFlags', { peerId: pinned[0]?.peerId, pinned: false });
    await waitUpdate(tab, 'chat', seq, (u) => u.chat.peerId === pinned[0]?.peerId && u.chat.pinnedAt === null);
    const now = Date.now();
    const r = await me.ws.request('chatFlags', { peerId: left.user.id, pinned: true });
    expect(r.chat.pinnedAt).toBeGreaterThanOrEqual(now - 1000);
    // The peers' own summaries are not pinned.
    for (const p of peers) expect((await p.ws.request('chats')).chats[0]?.pinnedAt).toBeNull();
    await tab.close();
  });

  it('an archived or locked chat cannot be pinned, and archiving or locking one unpins it', async () => {
    const { me, peers } = await withChats(2);
    const [b, c] = peers as [Person, Person];
    await me.ws.request('chatFlags', { peerId: b.user.id, pinned: true });
    const archived = await me.ws.request('chatFlags', { peerId: b.user.id, archived: true });
    expect(archived.chat).toMatchObject({ archived: true, pinnedAt: null });
    expect(await me.ws.requestError('chatFlags', { peerId: b.user.id, pinned: true })).toMatchObject({
      code: 'forbidden',
      message: CHAT_FLAGS_MSG.pinHidden,
    });
    await setPin(me, '123456');
    await me.ws.request('chatFlags', { peerId: c.user.id, pinned: true });
    const locked = await me.ws.request('chatFlags', { peerId: c.user.id, locked: true });
    expect(locked.chat).toMatchObject({ locked: true, pinnedAt: null });
  });

  it('mutes for 8 hours, a week or for good, and unmutes; the mark is the user’s alone and reaches their other sockets', async () => {
    const { me, peers } = await withChats(1);
    const [b] = peers as [Person];
    const tab = await WsTestClient.connect(t, me.client.cookie);
    const before = Date.now();
    const eight = await me.ws.request('chatFlags', { peerId: b.user.id, mute: '8h' });
    const after = Date.now();
    expect(eight.chat.mutedUntil).toBeGreaterThanOrEqual(before + 8 * HOUR);
    expect(eight.chat.mutedUntil).toBeLessThanOrEqual(after + 8 * HOUR);
    const week = await me.ws.request('chatFlags', { peerId: b.user.id, mute: '1w' });
    expect(week.chat.mutedUntil).toBeGreaterThanOrEqual(before + 7 * 24 * HOUR);
    const seq = tab.lastSeq;
    const always = await me.ws.request('chatFlags', { peerId: b.user.id, mute: 'always' });
    expect(always.chat.mutedUntil).toBe(MUTED_ALWAYS);
    await waitUpdate(tab, 'chat', seq, (u) => u.chat.mutedUntil === MUTED_ALWAYS);
    // A message in a muted chat still counts as unread, and the chat stays muted.
    await b.ws.sendMessage(me.user.id, 'while muted');
    const muted = (await me.ws.request('chats')).chats[0];
    expect(muted).toMatchObject({ mutedUntil: MUTED_ALWAYS, unreadCount: 2 });
    expect((await b.ws.request('chats')).chats[0]?.mutedUntil).toBeNull();
    const off = await me.ws.request('chatFlags', { peerId: b.user.id, mute: 'off' });
    expect(off.chat.mutedUntil).toBeNull();
    await tab.close();
  });

  it('marks a chat unread until it is read; reading it again clears the mark on every socket', async () => {
    const { me, peers } = await withChats(1);
    const [b] = peers as [Person];
    await me.ws.request('read', { peerId: b.user.id });
    const tab = await WsTestClient.connect(t, me.client.cookie);
    const seq = tab.lastSeq;
    const marked = await me.ws.request('chatFlags', { peerId: b.user.id, markedUnread: true });
    expect(marked.chat).toMatchObject({ markedUnread: true, unreadCount: 0 });
    await waitUpdate(tab, 'chat', seq, (u) => u.chat.markedUnread);
    // Marked twice: nothing changes, nothing is logged.
    const again = me.ws.lastSeq;
    await me.ws.request('chatFlags', { peerId: b.user.id, markedUnread: true });
    expect(await t.server.ctx.chat.currentSeq(me.user.id)).toBe(again);
    const readSeq = tab.lastSeq;
    await tab.request('read', { peerId: b.user.id });
    await waitUpdate(me.ws, 'chat', readSeq, (u) => !u.chat.markedUnread);
    expect((await me.ws.request('chats')).chats[0]).toMatchObject({ markedUnread: false, unreadCount: 0 });
    await tab.close();
  });

  it('refuses malformed marks, and marks on a chat the user is not in (a stranger gets nothing)', async () => {
    const { me, peers } = await withChats(1);
    const [b] = peers as [Person];
    const eve = await person();
    for (const bad of [
      { pinned: 'yes' },
      { mute: '2h' },
      { mute: null },
      { markedUnread: false },
      { pinnedAt: 1 },
      { mutedUntil: 1 },
    ]) {
      expect((await me.ws.requestError('chatFlags', { peerId: b.user.id, ...bad })).code, JSON.stringify(bad)).toBe(
        'invalid_frame',
      );
    }
    for (const peerId of [me.user.id, b.user.id, 'A'.repeat(20)]) {
      for (const mark of [{ pinned: true }, { mute: 'always' }, { markedUnread: true }]) {
        expect(await eve.ws.requestError('chatFlags', { peerId, ...mark })).toMatchObject({ code: 'not_found' });
      }
    }
    await settle(me.ws);
    expect((await me.ws.request('chats')).chats[0]).toMatchObject({
      pinnedAt: null,
      mutedUntil: null,
      markedUnread: false,
    });
  });
});

/**
 * `migrate` (docs/e2ee.md): a sender re-encrypts their own messages from before
 * end-to-end encryption. Only their own rows, only rows still in the clear and not
 * deleted, each once, as revision 0 under the chat's current key; the peer opens the
 * result as the same text; the summary follows when the newest message is migrated.
 * Runs on SQLite, and on PostgreSQL too when TEST_DATABASE_URL is set.
 */
import { chatIdOf } from '@app/protocol';
import { sampleCiphertext } from '@app/protocol/test/samples';
import { describe, expect, it } from 'vitest';
import { ENGINES, LOOSE_LIMITS, useTestServer } from '../test/harness.ts';
import { messageRow } from '../test/legacy-plaintext.ts';
import { connectedPerson, type Person } from '../test/people.ts';

describe.each(ENGINES)('re-encrypting messages from before, on $name', ({ url }) => {
  const t = useTestServer({ engine: url, tag: 'migrate', config: { rateLimits: LOOSE_LIMITS } });
  const db = () => t.server.ctx.chat.db;

  /** A chat with a key (one sealed message), then `texts` from before encryption inserted older than it. */
  async function chatWithLegacy(a: Person, b: Person, legacy: { id: string; from: Person; text: string }[]) {
    const sealed = await a.ws.sendMessage(b.user.id, 'sealed hello');
    const chatId = chatIdOf(a.user.id, b.user.id);
    for (const [i, m] of legacy.entries()) {
      const to = m.from === a ? b : a;
      const row = messageRow(chatId, m.id, m.from.user.id, to.user.id, sealed.timestamp - 1000 + i, { text: m.text });
      await db().insertInto('messages').values(row).execute();
    }
    return { chatId, sealed };
  }

  const row = (chatId: string, id: string) =>
    db()
      .selectFrom('messages')
      .selectAll()
      .where('chat_id', '=', chatId)
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('the sender re-encrypts their own legacy messages, once; the peer reads the same text', async () => {
    const a = await connectedPerson(t);
    const b = await connectedPerson(t);
    const { chatId } = await chatWithLegacy(a, b, [
      { id: 'legacy-a-1', from: a, text: 'old words of a' },
      { id: 'legacy-b-1', from: b, text: 'old words of b' },
      { id: 'legacy-a-2', from: a, text: 'deleted words of a' },
    ]);
    await db().updateTable('messages').set({ deleted: 1, text: '' }).where('id', '=', 'legacy-a-2').execute();
    const items = [
      await a.ws.sealedEdit(chatId, 'legacy-a-1', 'old words of a', 0),
      // Not a's own, and deleted: skipped, not refused.
      await a.ws.sealedEdit(chatId, 'legacy-b-1', 'forged words', 0),
      await a.ws.sealedEdit(chatId, 'legacy-a-2', 'revived words', 0),
    ].map(({ msgId, ct }) => ({ msgId, ct }));
    expect(await a.ws.request('migrate', { chatId, items })).toEqual({ migrated: ['legacy-a-1'] });
    expect(await row(chatId, 'legacy-a-1')).toMatchObject({ sealed: 1, rev: 0, text: items[0]?.ct });
    expect(await row(chatId, 'legacy-b-1')).toMatchObject({ sealed: 0, text: 'old words of b' });
    expect(await row(chatId, 'legacy-a-2')).toMatchObject({ sealed: 0, deleted: 1, text: '' });

    const history = (await b.ws.request('history', { peerId: a.user.id })).messages;
    const migrated = history.find((m) => m.id === 'legacy-a-1');
    expect(migrated).toMatchObject({ ct: items[0]?.ct, legacyText: null, rev: 0 });
    expect(migrated && (await b.ws.textOf(migrated))).toBe('old words of a');
    expect(history.find((m) => m.id === 'legacy-b-1')).toMatchObject({ ct: null, legacyText: 'old words of b' });

    // Once: the same items again change nothing.
    const again = await a.ws.sealedEdit(chatId, 'legacy-a-1', 'rewritten later', 0);
    const items2 = [{ msgId: again.msgId, ct: again.ct }];
    expect(await a.ws.request('migrate', { chatId, items: items2 })).toEqual({ migrated: [] });
    expect((await row(chatId, 'legacy-a-1')).text).toBe(items[0]?.ct);
  });

  it('refuses another revision, an old key, a batch under two keys, and a chat of others', async () => {
    const a = await connectedPerson(t);
    const b = await connectedPerson(t);
    const eve = await connectedPerson(t);
    const { chatId } = await chatWithLegacy(a, b, [{ id: 'legacy-x', from: a, text: 'plain' }]);
    const rev1 = await a.ws.sealedEdit(chatId, 'legacy-x', 'plain', 1);
    expect((await a.ws.requestError('migrate', { chatId, items: [{ msgId: 'legacy-x', ct: rev1.ct }] })).code).toBe(
      'conflict',
    );
    const oldKey = { msgId: 'legacy-x', ct: sampleCiphertext(7, 0) };
    expect((await a.ws.requestError('migrate', { chatId, items: [oldKey] })).code).toBe('rekey_required');
    const good = await a.ws.sealedEdit(chatId, 'legacy-x', 'plain', 0);
    const mixed = [{ msgId: 'legacy-x', ct: good.ct }, oldKey];
    expect((await a.ws.requestError('migrate', { chatId, items: mixed })).code).toBe('conflict');
    // Every item is revision 0, not only the first.
    const laterRev = [
      { msgId: 'legacy-x', ct: good.ct },
      { msgId: 'legacy-x', ct: rev1.ct },
    ];
    expect((await a.ws.requestError('migrate', { chatId, items: laterRev })).code).toBe('conflict');
    expect((await eve.ws.requestError('migrate', { chatId, items: [{ msgId: 'legacy-x', ct: good.ct }] })).code).toBe(
      'not_found',
    );
    for (const bad of [[], Array.from({ length: 101 }, () => ({ msgId: 'legacy-x', ct: good.ct }))]) {
      expect((await a.ws.requestError('migrate', { chatId, items: bad })).code).toBe('invalid_frame');
    }
    expect(await row(chatId, 'legacy-x')).toMatchObject({ sealed: 0, text: 'plain' });
  });

  it('a migrated newest message becomes the sealed preview of both summaries', async () => {
    const a = await connectedPerson(t);
    const b = await connectedPerson(t);
    const { chatId, sealed } = await chatWithLegacy(a, b, []);
    // The newest message is from before (as an upgraded deployment can have it).
    const newest = messageRow(chatId, 'legacy-newest', a.user.id, b.user.id, sealed.timestamp + 1000, {
      text: 'newest plain',
    });
    await db().insertInto('messages').values(newest).execute();
    await db()
      .updateTable('user_chats')
      .set({
        last_id: 'legacy-newest',
        last_sender: a.user.id,
        last_message: 'newest plain',
        last_sealed: 0,
        last_rev: 0,
      })
      .where('chat_id', '=', chatId)
      .execute();
    const item = await a.ws.sealedEdit(chatId, 'legacy-newest', 'newest plain', 0);
    expect(await a.ws.request('migrate', { chatId, items: [{ msgId: item.msgId, ct: item.ct }] })).toEqual({
      migrated: ['legacy-newest'],
    });
    for (const p of [a, b]) {
      const chat = (await p.ws.request('chats')).chats.find((c) => c.chatId === chatId);
      expect(chat?.last).toMatchObject({ id: 'legacy-newest', ct: item.ct, legacyText: null });
      expect(chat && (await p.ws.lastText(chat))).toBe('newest plain');
    }
    // The summaries' copy of the text in the clear is gone: they refer to the message's row.
    const raw = await db().selectFrom('user_chats').select('last_message').where('chat_id', '=', chatId).execute();
    expect(raw.map((r) => r.last_message)).toEqual([null, null]);
  });

  /** `texts` from before encryption in a chat that has no key at all (as an imported one). */
  async function keylessChat(a: Person, b: Person, legacy: { id: string; from: Person; text: string }[]) {
    const chatId = chatIdOf(a.user.id, b.user.id);
    for (const [i, m] of legacy.entries()) {
      const to = m.from === a ? b : a;
      await db()
        .insertInto('messages')
        .values(messageRow(chatId, m.id, m.from.user.id, to.user.id, 1_700_000_000_000 + i, { text: m.text }))
        .execute();
    }
    return chatId;
  }

  it('a chat with no key takes its first one with the batch; later sends use it', async () => {
    const a = await connectedPerson(t);
    const b = await connectedPerson(t);
    const chatId = await keylessChat(a, b, [{ id: `nk-${a.user.id}`, from: a, text: 'before any key' }]);
    const msgId = `nk-${a.user.id}`;
    const sealed = await a.ws.sealerOf().seal(b.user.id, msgId, 'before any key', 0, a.ws);
    expect(sealed.chatKey?.epoch).toBe(1);
    // Without the key it brings: refused, as before.
    expect((await a.ws.requestError('migrate', { chatId, items: [{ msgId, ct: sealed.ct }] })).code).toBe(
      'rekey_required',
    );
    // A key that is not the next one, or not the sender's own, is refused like a send's.
    const notNext = { ...sealed.chatKey, epoch: 2 } as NonNullable<typeof sealed.chatKey>;
    expect(
      (await a.ws.requestError('migrate', { chatId, items: [{ msgId, ct: sealed.ct }], chatKey: notNext })).code,
    ).toBe('rekey_required');
    expect(
      (await b.ws.requestError('migrate', { chatId, items: [{ msgId, ct: sealed.ct }], chatKey: sealed.chatKey })).code,
    ).toBe('rekey_required');
    expect(
      await a.ws.request('migrate', { chatId, items: [{ msgId, ct: sealed.ct }], chatKey: sealed.chatKey }),
    ).toEqual({ migrated: [msgId] });
    const history = (await b.ws.request('history', { peerId: a.user.id })).messages;
    const m = history.find((x) => x.id === msgId);
    expect(m && (await b.ws.textOf(m))).toBe('before any key');
    // The chat's key is stored: both can send under it, no second key made.
    await b.ws.sendMessage(a.user.id, 'reply under the same key');
    const keys = await db().selectFrom('chat_keys').select('epoch').where('chat_id', '=', chatId).execute();
    expect(keys.map((k) => Number(k.epoch))).toEqual([1]);
  });

  it('legacyOwn pages only one’s own messages in the clear, locked chats left out, with their count', async () => {
    const a = await connectedPerson(t);
    const b = await connectedPerson(t);
    const c = await connectedPerson(t);
    const withB = await keylessChat(a, b, [
      { id: 'own-msg-1', from: a, text: 'one' },
      { id: 'own-msg-2', from: a, text: 'two' },
      { id: 'theirs-msg-1', from: b, text: 'not mine' },
      { id: 'own-msg-3', from: a, text: 'three' },
    ]);
    await db()
      .updateTable('messages')
      .set({ deleted: 1, text: '' })
      .where('chat_id', '=', withB)
      .where('id', '=', 'own-msg-3')
      .execute();
    const withC = await keylessChat(a, c, [{ id: 'own-msg-c', from: a, text: 'hidden' }]);
    await db()
      .insertInto('user_chats')
      .values({
        user_id: a.user.id,
        chat_id: withC,
        peer_id: c.user.id,
        timestamp: 1,
        unread_count: 0,
        archived: 0,
        locked: 1,
        last_message: null,
        last_id: null,
        last_sender: null,
        chat_key: null,
        pinned_at: null,
        muted_until: null,
      })
      .execute();
    const first = await a.ws.request('legacyOwn', {});
    expect(first.total).toBe(2);
    expect(first.messages.map((m) => [m.id, m.legacyText])).toEqual([
      ['own-msg-1', 'one'],
      ['own-msg-2', 'two'],
    ]);
    const after = await a.ws.request('legacyOwn', { after: { chatId: withB, msgId: 'own-msg-1' } });
    expect(after).toEqual({ messages: [expect.objectContaining({ id: 'own-msg-2' })] });
    // b sees only b's; c nothing of a's.
    expect((await b.ws.request('legacyOwn', {})).messages.map((m) => m.id)).toEqual(['theirs-msg-1']);
    expect(await c.ws.request('legacyOwn', {})).toEqual({ messages: [], total: 0 });
    // Unlocked, the chat's message counts too.
    await db().updateTable('user_chats').set({ locked: 0 }).where('chat_id', '=', withC).execute();
    expect((await a.ws.request('legacyOwn', {})).total).toBe(3);
    expect((await a.ws.requestError('legacyOwn', { after: { chatId: 'x', msgId: '' } })).code).toBe('invalid_frame');
  });
});

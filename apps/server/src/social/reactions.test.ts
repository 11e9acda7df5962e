/**
 * Reactions (protocol reactions.ts) against a real server with raw WebSocket clients, on
 * SQLite and on PostgreSQL when TEST_DATABASE_URL is set: one sealed emoji per person per
 * message, relayed to both participants, activity for the message's sender, and refused to
 * anyone outside the chat, on another chat's message, on a deleted one, or malformed.
 */
import { chatIdOf, REACTION_CT_LENGTH, REACTION_MSG } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { ENGINES, LOOSE_LIMITS, useTestServer } from '../test/harness.ts';
import { connectedPerson, type Person, setPin, settle, updatesOf, waitUpdate } from '../test/people.ts';
import { WsTestClient } from '../test/ws-client.ts';

describe.each(ENGINES)('reactions on $name', ({ url }) => {
  const t = useTestServer({ engine: url, tag: 'react', config: { rateLimits: LOOSE_LIMITS } });
  const person = () => connectedPerson(t);

  /** Alice and Bob with a chat, and Alice's first message in it. */
  async function chat(): Promise<{ alice: Person; bob: Person; chatId: string; msgId: string }> {
    const [alice, bob] = [await person(), await person()];
    const m = await alice.ws.sendMessage(bob.user.id, 'Are we still on for Friday?');
    return { alice, bob, chatId: chatIdOf(alice.user.id, bob.user.id), msgId: m.id };
  }

  it('relays a sealed reaction to both people, one per person: replaced, then taken back; the sender’s chat shows unread', async () => {
    const { alice, bob, chatId, msgId } = await chat();
    await alice.ws.request('read', { peerId: bob.user.id });
    const seq = alice.ws.lastSeq;
    const ct = await bob.sealer.sealReaction(chatId, msgId, '👍');
    const r = await bob.ws.request('react', { chatId, msgId, ct });
    expect(r.reaction).toMatchObject({ chatId, msgId, userId: bob.user.id, ct });
    const got = await waitUpdate(alice.ws, 'reaction', seq);
    expect(got.reaction.ct).toHaveLength(REACTION_CT_LENGTH);
    expect(await alice.sealer.openReaction({ ...got.reaction, ct: got.reaction.ct as string })).toBe('👍');
    // Activity for Alice: her chat is marked unread, its summary with the reaction.
    expect(got.chat).toMatchObject({ chatId, markedUnread: true });
    expect((await alice.ws.request('chats')).chats[0]?.markedUnread).toBe(true);
    // Bob's own summary is not marked.
    expect((await bob.ws.request('chats')).chats[0]?.markedUnread).toBe(false);

    // A second reaction replaces the first; the history page carries the one.
    await bob.ws.request('react', { chatId, msgId, ct: await bob.sealer.sealReaction(chatId, msgId, '❤️') });
    const page = await alice.ws.request('history', { peerId: bob.user.id });
    expect(page.reactions).toHaveLength(1);
    const [stored] = page.reactions ?? [];
    expect(await alice.sealer.openReaction({ ...stored, ct: stored?.ct as string } as never)).toBe('❤️');
    // Alice reacts to her own message too: two reactions, hers not marking anything.
    await alice.ws.request('react', { chatId, msgId, ct: await alice.sealer.sealReaction(chatId, msgId, '😂') });
    expect((await bob.ws.request('history', { peerId: alice.user.id })).reactions).toHaveLength(2);

    // Taken back: gone from the page, and both hear it.
    const bobSeq = bob.ws.lastSeq;
    await bob.ws.request('react', { chatId, msgId, ct: null });
    await waitUpdate(alice.ws, 'reaction', seq, (u) => u.reaction.userId === bob.user.id && u.reaction.ct === null);
    await waitUpdate(bob.ws, 'reaction', bobSeq, (u) => u.reaction.ct === null);
    const after = await alice.ws.request('history', { peerId: bob.user.id });
    expect(after.reactions?.map((x) => x.userId)).toEqual([alice.user.id]);
  });

  it('refuses a stranger, another chat’s message, a deleted message, a malformed or keyless reaction; a deletion takes reactions away', async () => {
    const { alice, bob, chatId, msgId } = await chat();
    const carol = await person();
    const ct = await bob.sealer.sealReaction(chatId, msgId, '👍');
    // A stranger to the chat, with a real reaction blob.
    expect(await carol.ws.requestError('react', { chatId, msgId, ct })).toMatchObject({ code: 'not_found' });
    // Another chat's message named in this chat.
    const other = await carol.ws.sendMessage(alice.user.id, 'hi Alice');
    expect(await bob.ws.requestError('react', { chatId, msgId: other.id, ct })).toMatchObject({
      code: 'not_found',
      message: REACTION_MSG.notFound,
    });
    // Not a sealed reaction: another length, another alphabet.
    for (const bad of ['x'.repeat(REACTION_CT_LENGTH - 1), `${'A'.repeat(REACTION_CT_LENGTH - 1)}!`, 42]) {
      expect(await bob.ws.requestError('react', { chatId, msgId, ct: bad })).toMatchObject({ code: 'invalid_frame' });
    }
    // Under an epoch the chat has no key of.
    const keyless = `AQAAAAk${ct.slice(7)}`;
    expect(await bob.ws.requestError('react', { chatId, msgId, ct: keyless })).toMatchObject({
      code: 'rekey_required',
    });

    await bob.ws.request('react', { chatId, msgId, ct });
    await alice.ws.deleteMessage(chatId, msgId);
    expect((await bob.ws.request('history', { peerId: alice.user.id })).reactions).toBeUndefined();
    expect(await bob.ws.requestError('react', { chatId, msgId, ct })).toMatchObject({
      code: 'conflict',
      message: REACTION_MSG.deleted,
    });
    // Nothing reached Carol.
    await settle(carol.ws);
    expect(updatesOf(carol.ws, 'reaction')).toHaveLength(0);
  });

  it('taking back nothing logs nothing; a deleted account takes its reactions and those to its messages with it', async () => {
    const { alice, bob, chatId, msgId } = await chat();
    const seq = bob.ws.lastSeq;
    await bob.ws.request('react', { chatId, msgId, ct: null });
    await settle(bob.ws);
    expect(updatesOf(bob.ws, 'reaction', seq)).toHaveLength(0);

    const bobs = await bob.ws.sendMessage(alice.user.id, 'and one of mine');
    // The same message id in another chat: its reactions are not Bob's to take.
    const carol = await person();
    const carolChat = chatIdOf(alice.user.id, carol.user.id);
    const sameId = await carol.ws.sendMessage(alice.user.id, 'same id, other chat', bobs.id);
    await alice.ws.request('react', {
      chatId: carolChat,
      msgId: sameId.id,
      ct: await alice.sealer.sealReaction(carolChat, sameId.id, '🙂'),
    });
    await bob.ws.request('react', { chatId, msgId, ct: await bob.sealer.sealReaction(chatId, msgId, '👍') });
    await alice.ws.request('react', {
      chatId,
      msgId: bobs.id,
      ct: await alice.sealer.sealReaction(chatId, bobs.id, '❤️'),
    });
    await t.server.ctx.store.deleteUser(bob.user.id);
    const left = await t.server.ctx.store.db.selectFrom('reactions').select(['chat_id', 'msg_id']).execute();
    expect(left.filter((r) => r.chat_id === chatId)).toEqual([]);
    expect(left.filter((r) => r.chat_id === carolChat)).toEqual([{ chat_id: carolChat, msg_id: sameId.id }]);
  });

  it('in a locked chat: a socket without the PIN hears which message, not the emoji, and cannot react', async () => {
    const { alice, bob, chatId, msgId } = await chat();
    await setPin(alice, '123456');
    await alice.ws.request('chatFlags', { peerId: bob.user.id, locked: true });
    const tab = await WsTestClient.connect(t, alice.client.cookie);
    const seq = tab.lastSeq;
    await bob.ws.request('react', { chatId, msgId, ct: await bob.sealer.sealReaction(chatId, msgId, '👍') });
    const got = await waitUpdate(tab, 'reaction', seq);
    expect(got.reaction).toMatchObject({ msgId, userId: bob.user.id, ct: null });
    expect(await tab.requestError('react', { chatId, msgId, ct: null })).toMatchObject({ code: 'locked' });
    await tab.close();
  });
});

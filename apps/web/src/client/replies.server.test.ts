/**
 * Replies and forwards with the real ChatClient against a real server (SQLite and
 * PostgreSQL): the reference and the forwarded mark travel sealed inside the message
 * (e2ee message-content.ts), the peer opens them, an edit keeps them, and nothing of them
 * is on the server or in the outbox at rest in the clear.
 */
import { ENGINES } from '@app/server/test';
import { describe, expect, it } from 'vitest';
import { newUser, online, opened, shown, type TestUser, until, useTabServer } from '@/test/chat-clients';
import { testSealing } from '@/test/local-sealing';
import { memoryOutbox } from '@/test/memory-outbox';
import type { Shown } from './crypto/message-crypto';

function asText(s: Shown | undefined) {
  if (s?.kind !== 'text') throw new Error(`not a text: ${s?.kind}`);
  return s;
}

describe.each(ENGINES)('replies and forwards ($name)', ({ url }) => {
  const { t, tab, pair } = useTabServer(url, 'replies');

  async function users(n: number): Promise<TestUser[]> {
    const out: TestUser[] = [];
    for (let i = 0; i < n; i++) out.push(await newUser(t));
    return out;
  }

  it('a reply carries its original sealed: the peer opens the reference, an edit keeps it, the server sees no link', async () => {
    const [alice, bob, a, b] = await pair();

    a.client.sendMessage(bob.id, 'Are we still on for Friday?\nBring the maps');
    await until(() => shown(b, alice.id).length === 1, "Alice's question");
    const question = shown(b, alice.id)[0];
    if (!question) throw new Error('no question');
    await opened(b, [question]);
    b.client.sendMessage(alice.id, {
      text: 'Yes, 7 pm',
      reply: { msgId: question.id, senderId: alice.id, excerpt: 'Are we still on for Friday?' },
    });
    await until(() => shown(a, bob.id).length === 2, "Bob's reply");
    const [, answer] = await opened(a, shown(a, bob.id));
    expect(asText(answer)).toMatchObject({
      text: 'Yes, 7 pm',
      reply: { msgId: question.id, senderId: alice.id, excerpt: 'Are we still on for Friday?' },
    });

    // The stored reply is a ciphertext like any other: no id of the original, no excerpt.
    const page = await t.server.ctx.chat.history(question.chatId, 50);
    const stored = JSON.stringify(page);
    expect(stored).not.toContain('Friday');
    const replyRow = page.messages.find((m) => m.id !== question.id);
    expect(JSON.stringify(replyRow)).not.toContain(question.id);

    // Bob edits his reply: the quote stays, for him and for Alice.
    const sent = shown(b, alice.id).find((m) => m.senderId === bob.id);
    if (!sent) throw new Error('no reply in Bob’s tab');
    await b.client.editMessage(sent, 'Yes, 8 pm');
    await until(() => shown(a, bob.id)[1]?.rev === 1, 'the edit');
    const [, edited] = await opened(a, shown(a, bob.id));
    expect(asText(edited)).toMatchObject({ text: 'Yes, 8 pm', reply: { msgId: question.id } });
    const [, own] = await opened(b, shown(b, alice.id));
    expect(asText(own)).toMatchObject({ text: 'Yes, 8 pm', reply: { msgId: question.id } });
  });

  it('a forward is sealed anew for each chat and opens marked forwarded; the outbox keeps the mark sealed over a reload', async () => {
    const [alice, bob, carol] = (await users(3)) as [TestUser, TestUser, TestUser];
    const outbox = memoryOutbox();
    const sealing = testSealing();
    const a = tab(alice, { outboxStore: outbox.store, localSealing: sealing });
    const b = tab(bob);
    const c = tab(carol);
    await Promise.all([online(a), online(b), online(c)]);
    b.client.openConversation(alice.id);
    c.client.openConversation(alice.id);

    // Offline, the forwards wait in the outbox: what is at rest is sealed, mark and all.
    a.env.goOffline();
    const reply = { msgId: 'original-0001', senderId: bob.id, excerpt: 'the quoted excerpt' };
    a.client.sendMessage(bob.id, { text: 'see you at the harbour', forwarded: true });
    a.client.sendMessage(carol.id, { text: 'see you at the harbour', forwarded: true, reply });
    await until(() => outbox.rows.size === 2, 'both forwards stored');
    const atRest = JSON.stringify([...outbox.rows.values()]);
    expect(atRest).not.toMatch(/harbour|forwarded|quoted excerpt|original-0001/);
    expect(
      [...outbox.rows.values()].every((r) => typeof (r as { sealedExtras?: unknown }).sealedExtras === 'string'),
    ).toBe(true);

    // A reload: the same storage and browser key, a new tab sends them.
    a.stop();
    const a2 = tab(alice, { outboxStore: outbox.store, localSealing: sealing });
    await online(a2);
    await until(() => shown(b, alice.id).length === 1 && shown(c, alice.id).length === 1, 'both forwards delivered');
    const [toBob] = await opened(b, shown(b, alice.id));
    const [toCarol] = await opened(c, shown(c, alice.id));
    expect(asText(toBob)).toMatchObject({ text: 'see you at the harbour', forwarded: true });
    expect(asText(toBob).reply).toBeUndefined();
    expect(asText(toCarol)).toMatchObject({ forwarded: true, reply });
    // Two chats, two chat keys: the two ciphertexts share nothing.
    expect(shown(b, alice.id)[0]?.ct).not.toBe(shown(c, alice.id)[0]?.ct);
  });
});

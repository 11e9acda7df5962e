/**
 * The real ChatClient (with its socket, outbox, receipts, user directory and conversation
 * state) in Node against a real server, on SQLite and on PostgreSQL: what the browser
 * runs, without the browser.
 */
import { chatIdOf } from '@app/protocol';
import { ENGINES, LOOSE_LIMITS, signUp, startEngineServer, type TestServer, verifyEmail } from '@app/server/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, online, openTab, shown, type TestTab, until } from '@/test/chat-clients';

describe.each(ENGINES)('the web ChatClient against a real server ($name)', ({ url }) => {
  let t: TestServer;
  const tabs: TestTab[] = [];
  const tab = (...args: Parameters<typeof openTab>) => {
    const x = openTab(...args);
    tabs.push(x);
    return x;
  };
  beforeAll(async () => {
    t = await startEngineServer(url, 'webclient', { config: { rateLimits: LOOSE_LIMITS } });
  });
  afterAll(async () => {
    for (const x of tabs) x.stop();
    await t?.close();
  });

  it('resumes after a gap: what was sent while it was offline arrives once, in order', async () => {
    const [alice, bob] = [await newUser(t), await newUser(t)];
    const a = tab(t, alice);
    const b = tab(t, bob);
    await Promise.all([online(a), online(b)]);
    const release = a.client.openConversation(bob.id);
    b.client.openConversation(alice.id);
    for (const text of ['one', 'two', 'three']) b.client.sendMessage(alice.id, text);
    await until(() => shown(a, bob.id).length === 3, 'the first three messages');

    a.env.goOffline();
    expect(a.client.status).toBe('offline');
    for (const text of ['four', 'five', 'six', 'seven']) b.client.sendMessage(alice.id, text);
    await until(() => shown(b, alice.id).length === 7, 'the sender to have all seven acknowledged');
    expect(shown(a, bob.id)).toHaveLength(3);

    a.env.goOnline();
    await until(() => shown(a, bob.id).length === 7, 'the gap to be filled');
    const texts = shown(a, bob.id).map((m) => m.text);
    expect(texts).toEqual(['one', 'two', 'three', 'four', 'five', 'six', 'seven']);
    expect(new Set(shown(a, bob.id).map((m) => m.id)).size).toBe(7);
    // Alice's client acknowledged them: Bob sees them delivered.
    await until(() => shown(b, alice.id).every((m) => m.status !== 'sent'), 'delivery receipts');
    release();
  });

  it('resumes after the connection is cut without a close', async () => {
    const [alice, bob] = [await newUser(t), await newUser(t)];
    const a = tab(t, alice);
    const b = tab(t, bob);
    await Promise.all([online(a), online(b)]);
    a.client.openConversation(bob.id);
    a.env.cut();
    b.client.sendMessage(alice.id, 'while cut');
    await until(() => shown(a, bob.id).some((m) => m.text === 'while cut'), 'the message sent while cut');
    expect(a.client.status).toBe('online');
  });

  it('marks a refused send "Not sent", and sends it when retried after the cause is gone', async () => {
    const admin = await signUp(t, { email: 'admin@example.com' });
    await verifyEmail(t, 'admin@example.com');
    const [alice, bob] = [await newUser(t), await newUser(t)];
    const a = tab(t, alice);
    await online(a);
    a.client.openConversation(bob.id);
    const block = (blocked: boolean) => admin.client.request('PATCH', `/api/admin/users/${bob.id}`, { blocked });
    expect((await block(true)).status).toBe(200);

    expect(a.client.sendMessage(bob.id, 'are you there?')).toBeNull();
    await until(() => a.client.getConversation(bob.id).messages.some((m) => m.failed), 'the send to be refused');
    const failed = a.client.getConversation(bob.id).messages.find((m) => m.failed);
    expect(failed?.text).toBe('are you there?');
    expect(a.told.some(([title]) => title === 'Message Not Sent')).toBe(true);

    expect((await block(false)).status).toBe(200);
    a.client.retryMessage(failed?.id as string);
    await until(() => shown(a, bob.id).some((m) => m.text === 'are you there?'), 'the retried send');
    // Stored once (blocking signed Bob out: the server's history says what he will read).
    const page = await t.server.ctx.chat.history(chatIdOf(alice.id, bob.id), 50);
    expect(page.messages.map((m) => m.text)).toEqual(['are you there?']);
  });

  it('loads that race with live updates end with every message and the right chat row', async () => {
    const [alice, bob] = [await newUser(t), await newUser(t)];
    const b = tab(t, bob);
    await online(b);
    b.client.sendMessage(alice.id, 'before');
    await until(() => shown(b, alice.id).length === 0 && b.client.chatWith(alice.id) !== undefined, 'the first send');
    // Alice's tab starts (welcome → chat list and history loads) while Bob keeps sending.
    const a = tab(t, alice);
    a.client.openConversation(bob.id);
    const texts = Array.from({ length: 20 }, (_, i) => `live ${i}`);
    for (const text of texts) b.client.sendMessage(alice.id, text);
    await until(() => shown(a, bob.id).length === 21, 'all 21 messages');
    expect(shown(a, bob.id).map((m) => m.text)).toEqual(['before', ...texts]);
    await until(() => a.client.chatWith(bob.id)?.lastMessage === 'live 19', 'the chat row');
  });

  it("one of a user's tabs reads a chat: the other's unread count goes to zero", async () => {
    const [alice, bob] = [await newUser(t), await newUser(t)];
    const b = tab(t, bob);
    const a1 = tab(t, alice);
    const a2 = tab(t, alice);
    await Promise.all([online(a1), online(a2), online(b)]);
    for (const text of ['hi', 'are you', 'there']) b.client.sendMessage(alice.id, text);
    for (const a of [a1, a2]) await until(() => a.client.chatWith(bob.id)?.unreadCount === 3, 'three unread');

    a1.client.openConversation(bob.id);
    await until(() => shown(a1, bob.id).length === 3, 'the conversation');
    a1.client.markRead(bob.id);
    await until(() => a2.client.chatWith(bob.id)?.unreadCount === 0, 'the other tab to clear its count');
    expect(a1.client.chatWith(bob.id)?.unreadCount).toBe(0);
    b.client.openConversation(alice.id);
    await until(() => shown(b, alice.id).every((m) => m.status === 'read'), 'Bob to see them read');
  });
});

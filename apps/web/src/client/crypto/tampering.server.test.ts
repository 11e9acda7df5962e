/**
 * What a server that edits its own database can no longer make a browser show (issue 28,
 * docs/threat-model.md): an older revision of a message (the text before an edit, or
 * before its deletion) is refused once a newer one was seen; a deletion is believed only
 * with its sender's tombstone; the real ChatClient against a real server whose rows the
 * test rewrites, on SQLite (and PostgreSQL when TEST_DATABASE_URL is set).
 */

import { DELETED_TEXT } from '@app/protocol';
import { ENGINES } from '@app/server/test';
import { describe, expect, it } from 'vitest';
import { ROLLED_BACK_TEXT, UNVERIFIED_TEXT } from '@/client/crypto/message-crypto';
import { Revisions } from '@/client/crypto/revisions';
import { newUser, online, type TestUser, textsOf, until, useTabServer } from '@/test/chat-clients';

describe.each(ENGINES)('a server rewriting its rows ($name)', ({ url }) => {
  const { t, tab } = useTabServer(url, 'tamper');
  const db = () => t.server.ctx.chat.db;

  /** What a new tab of `user` (remembering `revisions`) reads of its chat with `peerId`, once `n` messages loaded. */
  async function readIn(user: TestUser, peerId: string, n: number, revisions?: Revisions): Promise<string[]> {
    const x = tab(user, revisions ? { revisions } : {});
    await online(x);
    x.client.openConversation(peerId);
    await until(() => x.client.getConversation(peerId).messages.length === n, `${n} messages`);
    return textsOf(x, peerId);
  }

  async function messageRow(msgId: string) {
    return db().selectFrom('messages').selectAll().where('id', '=', msgId).executeTakeFirstOrThrow();
  }

  it('an edit rolled back to the text before it is refused where the edit was seen', async () => {
    const [alice, bob] = [await newUser(t), await newUser(t)];
    const a = tab(alice);
    await online(a);
    a.client.openConversation(bob.id);
    expect(a.client.sendMessage(bob.id, 'pay 10')).toBeNull();
    await until(() => a.client.getConversation(bob.id).messages.some((m) => m.ct !== null && !m.pending), 'the send');
    const sent = a.client.getConversation(bob.id).messages[0];
    if (!sent) throw new Error('no message');
    const before = await messageRow(sent.id);
    await a.client.editMessage(sent, 'pay 1000');

    const seenHere = new Revisions(bob.id);
    expect(await readIn(bob, alice.id, 1, seenHere)).toEqual(['pay 1000']);

    // The server puts the first revision back, as if the edit never happened.
    await db()
      .updateTable('messages')
      .set({ text: before.text, rev: 0, edited: 0 })
      .where('id', '=', sent.id)
      .execute();
    // Bob's browser, reloaded (what it saw is at rest): refused. A browser that never saw the edit cannot tell.
    expect(await readIn(bob, alice.id, 1, seenHere)).toEqual([ROLLED_BACK_TEXT]);
    expect(await readIn(bob, alice.id, 1)).toEqual(['pay 10']);
  });

  it('a text that begins with U+FEFF reads the same to its recipient (a decoder must not take it for a byte order mark)', async () => {
    const [alice, bob] = [await newUser(t), await newUser(t)];
    const a = tab(alice);
    await online(a);
    a.client.openConversation(bob.id);
    expect(a.client.sendMessage(bob.id, '\uFEFFbom first')).toBeNull();
    expect(await readIn(bob, alice.id, 1)).toEqual(['\uFEFFbom first']);
  });

  it('a deletion shows only with its sender’s tombstone: a flag the server set is not one, nor an undelete', async () => {
    const [alice, bob] = [await newUser(t), await newUser(t)];
    const a = tab(alice);
    await online(a);
    a.client.openConversation(bob.id);
    for (const text of ['keep me', 'forge my deletion', 'really delete me']) {
      expect(a.client.sendMessage(bob.id, text)).toBeNull();
    }
    await until(
      () => a.client.getConversation(bob.id).messages.filter((m) => m.ct !== null && !m.pending).length === 3,
      'the sends',
    );
    const [, forged, real] = a.client.getConversation(bob.id).messages;
    if (!forged || !real) throw new Error('no messages');
    const realBefore = await messageRow(real.id);
    await a.client.deleteMessage(real);
    await until(() => a.client.getConversation(bob.id).messages.some((m) => m.id === real.id && m.deleted), 'deleted');
    // The server marks a message deleted on its own (its ciphertext gone, as a deletion leaves it before tombstones).
    await db().updateTable('messages').set({ deleted: 1, text: '' }).where('id', '=', forged.id).execute();

    const seenHere = new Revisions(bob.id);
    expect(await readIn(bob, alice.id, 3, seenHere)).toEqual(['keep me', UNVERIFIED_TEXT, DELETED_TEXT]);

    // Undeleting the real one (its first revision back) is refused where the tombstone was seen.
    await db()
      .updateTable('messages')
      .set({ deleted: 0, text: realBefore.text, rev: 0 })
      .where('id', '=', real.id)
      .execute();
    expect((await readIn(bob, alice.id, 3, seenHere))[2]).toBe(ROLLED_BACK_TEXT);
  });
});

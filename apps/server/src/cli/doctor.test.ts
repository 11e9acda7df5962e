/**
 * `npm run admin -- doctor` on SQLite, and on PostgreSQL when TEST_DATABASE_URL is set: a
 * deployment in use passes every check; each kind of damage a healthy database never holds
 * (planted row by row) is found, counted, named by id, and the command exits 1; it changes
 * nothing (no migration is run).
 */
import { chatIdOf } from '@app/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureOutput } from '../test/cli-output.ts';
import { ENGINES } from '../test/harness.ts';
import { type ImportEnv, importEnv } from '../test/import-env.ts';
import { messageRow } from '../test/legacy-plaintext.ts';
import { connectedPerson } from '../test/people.ts';
import { runAdmin } from './admin.ts';

describe.each(ENGINES)('doctor on $name', ({ url }) => {
  let e: ImportEnv;
  beforeAll(async () => {
    e = await importEnv(url, 'doctor');
  });
  afterAll(async () => {
    await e?.close();
  });

  const doctor = async () => {
    const c = captureOutput();
    const code = await runAdmin(['doctor'], e.env, c.out);
    return { code, out: c.lines.join('\n') };
  };

  it('passes a deployment in use, and finds each kind of damage planted in it', async () => {
    const t = e.t;
    const [a, b, c] = [await connectedPerson(t), await connectedPerson(t), await connectedPerson(t)];
    await a.ws.sendMessage(b.user.id, 'hello');
    await b.ws.sendMessage(a.user.id, 'hi back');
    const healthy = await doctor();
    expect(healthy.code, healthy.out).toBe(0);
    expect(healthy.out).toMatch(/^Checking the .* and the attachment blobs in /);
    expect(healthy.out).toMatch(/All \d+ checks passed/);

    const db = t.server.ctx.store.db;
    const ab = chatIdOf(a.user.id, b.user.id);
    const ac = chatIdOf(a.user.id, c.user.id);
    const seq = Number(
      (await db.selectFrom('users').select('update_seq').where('id', '=', c.user.id).executeTakeFirstOrThrow())
        .update_seq,
    );
    await db
      .insertInto('user_updates')
      .values({ user_id: c.user.id, seq: seq + 5, kind: 'chatRemoved', payload: '{}', created_at: 1 })
      .execute();
    await db
      .updateTable('user_chats')
      .set({ unread_count: -1, last_id: 'no-such-message' })
      .where('user_id', '=', b.user.id)
      .execute();
    await db.updateTable('user_chats').set({ peer_id: c.user.id }).where('user_id', '=', a.user.id).execute();
    // A row of the chat of a and c filed under a and b; a sealed message in a chat with no key.
    await db
      .insertInto('messages')
      .values(messageRow(ab, 'misfiled-message', a.user.id, c.user.id, 5, { text: 'x' }))
      .execute();
    await db
      .insertInto('messages')
      .values(messageRow(ac, 'keyless-message', a.user.id, c.user.id, 6, { text: 'AQAAAAEAAA', sealed: 1 }))
      .execute();
    await db.updateTable('users').set({ blocked: 1 }).where('id', '=', c.user.id).execute();
    await db
      .insertInto('attachments')
      .values({
        id: 'a'.repeat(22),
        owner_id: a.user.id,
        size: 1234,
        created_at: 1,
        complete: 1,
        chat_id: null,
        msg_id: null,
      })
      .execute();

    const sick = await doctor();
    expect(sick.code, sick.out).toBe(1);
    for (const line of [
      new RegExp(`update log entries beyond their user’s sequence number: 1 \\(${c.user.id}:${seq + 5}\\)`),
      /chat summaries whose chat id does not name their user and peer: 1 /,
      /chat summaries showing a message the chat does not have: 1 /,
      /chat summaries with a negative unread count: 1 /,
      new RegExp(`messages whose chat id does not name their sender and recipient: 1 \\(${ab}:misfiled-message\\)`),
      new RegExp(`encrypted messages in a chat that has no key: 1 \\(${ac}:keyless-message\\)`),
      new RegExp(`sessions of blocked accounts: 1 \\(${c.user.username}\\)`),
      new RegExp(`attachments whose stored blob is missing or of the wrong size: 1 \\(${'a'.repeat(22)}\\)`),
      /8 of \d+ checks found something/,
    ]) {
      expect(sick.out).toMatch(line);
    }
    // Names ids, never a message's words.
    expect(sick.out).not.toMatch(/hello|hi back/);
    expect(await runAdmin(['doctor', '--fix'], e.env, captureOutput().out)).toBe(2);
  });
});

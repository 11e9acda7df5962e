/**
 * import-rtdb on SQLite, and on PostgreSQL when TEST_DATABASE_URL is set: a generated export
 * (a 10,000-message chat, edits, deletions, an archived and a locked chat, requests) lands
 * whole, as rows from before end-to-end encryption, and a second run doubles nothing; the
 * imported accounts cannot sign in until they follow their set-password e-mail; a chat whose
 * write fails mid-way leaves nothing of itself; bad records are skipped and reported.
 */

import { statSync } from 'node:fs';
import { API, chatIdOf } from '@app/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { migrate, openDb } from '../storage/db.ts';
import { resetPasswordBody } from '../test/accounts.ts';
import { ENGINES, signInWith } from '../test/harness.ts';
import { type ImportEnv, importEnv } from '../test/import-env.ts';
import { chatKey, generateExport } from '../test/rtdb-export.ts';
import { runAdmin } from './admin.ts';
import { importRtdb } from './import-rtdb.ts';
import { readEntries } from './rtdb-export.ts';

const count = async (e: ImportEnv, table: 'users' | 'messages' | 'user_chats' | 'contacts' | 'import_ids') =>
  Number(
    (
      await e.t.server.ctx.store.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

const idOf = async (e: ImportEnv, username: string) =>
  (
    await e.t.server.ctx.store.db
      .selectFrom('users')
      .select('id')
      .where('username', '=', username)
      .executeTakeFirstOrThrow()
  ).id;

describe.each(ENGINES)('import-rtdb on $name', ({ url }) => {
  let e: ImportEnv;
  beforeAll(async () => {
    e = await importEnv(url, 'imp');
  });
  afterAll(async () => {
    await e?.close();
  });

  it('imports a generated export with a 10,000-message chat; a second run doubles nothing', async () => {
    const g = generateExport(16, 10_000);
    const file = e.file(g.tree);
    const first = await e.run(file);
    expect(first.code, first.out).toBe(0);
    expect(first.out).toMatch(/accounts: 5 created, 0 imported before/);
    expect(first.out).toMatch(/chats: 4 imported with 10,077 messages/);
    expect(first.out).toMatch(/typing flags: 1 ignored/);
    // Progress on stderr, every 10,000 messages.
    expect(first.out).toMatch(/^ERR +10,0\d\d messages/m);
    expect(await count(e, 'users')).toBe(g.expect.users);
    expect(await count(e, 'messages')).toBe(g.expect.messages);
    expect(await count(e, 'user_chats')).toBe(2 * g.expect.chats);
    expect(await count(e, 'contacts')).toBe(2 * g.expect.contacts);
    const db = e.t.server.ctx.store.db;
    const legacy = await db
      .selectFrom('messages')
      .select(['sealed', 'edited', 'deleted', 'text'])
      .where('sealed', '=', 0)
      .execute();
    expect(legacy).toHaveLength(g.expect.messages);
    expect(legacy.filter((m) => m.edited === 1)).toHaveLength(g.expect.edited);
    const deleted = legacy.filter((m) => m.deleted === 1);
    expect(deleted).toHaveLength(g.expect.deleted);
    expect(deleted.every((m) => m.text === '')).toBe(true);
    const [ada, bruno, chiara] = [await idOf(e, 'ada_0'), await idOf(e, 'bruno_1'), await idOf(e, 'chiara_2')];
    const dmitri = await idOf(e, 'dmitri_3');
    const brunoChats = await e.t.server.ctx.chat.chats(bruno);
    const big = brunoChats.find((c) => c.peerId === ada);
    expect(big?.unreadCount).toBe(3);
    expect(big?.archived).toBe(true); // from archives/{bruno}/{ada}
    expect((await e.t.server.ctx.chat.chats(chiara)).find((c) => c.peerId === ada)?.archived).toBe(true);
    expect(await e.t.server.ctx.social.lockedChats(ada)).toEqual([chatIdOf(ada, dmitri)]);
    const page = await e.t.server.ctx.chat.history(chatIdOf(ada, bruno), 50);
    expect(page.hasMore).toBe(true);
    expect(page.messages.at(-1)?.legacyText).toMatch(/#9999$/);
    expect(page.messages.every((m, i) => i === 0 || (page.messages[i - 1]?.timestamp ?? 0) <= m.timestamp)).toBe(true);

    // One set-password e-mail per account but the blocked one; sign-in is refused until its link is used.
    const mails = e.t.outbox().filter((m) => /Set your .* password/.test(m.subject));
    expect(mails).toHaveLength(4);
    expect(mails.some((m) => m.to.includes('esme@'))).toBe(false);
    expect(first.out).toMatch(/1 blocked account\(s\) were not e-mailed/);
    const refused = await signInWith(e.t.client(), 'ada@example.com', 'anything-at-all');
    expect(refused.status).toBe(401);
    const link = mails.find((m) => m.to.includes('ada@example.com'))?.links.find((l) => l.includes('/reset-password'));
    const token = new URL(link ?? 'http://x/').searchParams.get('token');
    const set = await e.t.client().post(API.resetPassword, await resetPasswordBody(token, 'a new password 1'));
    expect(set.status, JSON.stringify(set.body)).toBeLessThan(300);
    const signedIn = await signInWith(e.t.client(), 'ada_0', 'a new password 1');
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user.emailVerified).toBe(true);

    const second = await e.run(file);
    expect(second.code, second.out).toBe(0);
    expect(second.out).toMatch(/accounts: 0 created, 5 imported before/);
    expect(second.out).toMatch(/chats: 0 imported with 0 messages, 4 imported before/);
    expect(await count(e, 'users')).toBe(g.expect.users);
    expect(await count(e, 'messages')).toBe(g.expect.messages);
    expect(await count(e, 'user_chats')).toBe(2 * g.expect.chats);
    expect(await count(e, 'contacts')).toBe(2 * g.expect.contacts);
    expect(e.t.outbox().filter((m) => /Set your .* password/.test(m.subject))).toHaveLength(4);
    const n = await e.t.server.ctx.notices.notifications(dmitri);
    expect(n.items.filter((i) => i.type === 'request')).toHaveLength(1);
    expect(n.items.filter((i) => i.type === 'admin')).toHaveLength(2);
  }, 180_000);

  it('a chat whose write fails mid-way leaves nothing of itself; the next run imports it whole', async () => {
    const g = generateExport(17, 900);
    for (const u of Object.values(g.tree.users as Record<string, { username: string; email: string }>)) {
      u.username = `c${u.username}`;
      u.email = `c${u.email}`;
    }
    delete (g.tree as Record<string, unknown>).usernames;
    const file = e.file(g.tree);
    const big = chatKey(g.uids[0] as string, g.uids[1] as string);
    const before = { messages: await count(e, 'messages'), summaries: await count(e, 'user_chats') };
    const config = loadConfig(e.env);
    const db = await openDb({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      ...(config.databaseSchema ? { pgSchema: config.databaseSchema } : {}),
    });
    const lines: string[] = [];
    const out = { log: (l: string) => lines.push(l), error: (l: string) => lines.push(`ERR ${l}`) };
    try {
      await migrate(db);
      const code = await importRtdb(
        db,
        config,
        {
          file,
          email: false,
          faultAfterMessages: (chat) => {
            if (chat === big) throw new Error('injected crash after the messages');
          },
        },
        out,
      );
      expect(code).toBe(1);
    } finally {
      await db.close();
    }
    expect(lines.join('\n')).toMatch(/Chat not imported \(nothing of it written\): messages\/\w+_\w+: injected crash/);
    // The three small chats (77 messages), none of the big one.
    expect(await count(e, 'messages')).toBe(before.messages + 77);
    expect(await count(e, 'user_chats')).toBe(before.summaries + 6);
    const again = await e.run(file, '--no-email');
    expect(again.code, again.out).toBe(0);
    expect(again.out).toMatch(/chats: 1 imported with 900 messages, 3 imported before/);
    expect(await count(e, 'messages')).toBe(before.messages + 977);
    expect(await count(e, 'user_chats')).toBe(before.summaries + 8);
  }, 120_000);

  it('skips malformed records and records of unknown users, and says why', async () => {
    const good = { username: 'solo_ok', email: 'solo@example.com', name: 'Solo', pin: 'abc' };
    const tree = {
      messages: {
        uSolo_uSolo: { m1: { senderId: 'uSolo', text: 'me', timestamp: 4 } },
        uSolo_uGhost: {
          m1: { senderId: 'uSolo', text: 'hi', timestamp: 5 },
          m2: { senderId: 'uGhost', text: 'hello from a deleted account', timestamp: 6 },
        },
        uGhost_uGhost2: { m1: { senderId: 'uGhost', text: 'no one left', timestamp: 7 } },
        uBad_uSolo: { m1: { senderId: 'uSolo', text: 'to a bad record', timestamp: 8 } },
        uSolo_uToo: {
          m1: { senderId: 'uSolo', text: 'first', timestamp: 10, status: 'read' },
          m2: { senderId: 'uStranger', text: 'not in this chat', timestamp: 11 },
          m3: { senderId: 'uToo', timestamp: 12 },
          m4: { senderId: 'uToo', text: '  ', timestamp: 13 },
        },
      },
      userChats: { uSolo: { uSolo_uToo: { locked: true } } },
      contacts: { uSolo: { uGhost: true } },
      users: {
        uSolo: good,
        uToo: { username: 'solo_too', email: 'too@example.com' },
        uBad: { username: 'x', email: 'not-an-address' },
      },
      somethingElse: { a: 1 },
    };
    const r = await e.run(e.file(tree), '--no-email');
    expect(r.code, r.out).toBe(0);
    for (const line of [
      /users\/uBad: username: /,
      /users\/uSolo\/pin: not a 6-digit code/,
      /messages\/uGhost_uGhost2: both its users were deleted in the original app/,
      /messages\/uBad_uSolo: user uBad was not imported \(see users\/uBad\)/,
      /messages\/uSolo_uSolo: not two different user ids/,
      /messages\/uSolo_uToo\/m2: sender is not in this chat/,
      /messages\/uSolo_uToo\/m3: text: /,
      /messages\/uSolo_uToo\/m4: empty text/,
      /userChats\/uSolo\/uSolo_uToo\/locked: the user has no usable PIN: imported unlocked/,
      /contacts\/uSolo\/uGhost: user uGhost was not imported/,
      /somethingElse: not part of the original app/,
    ]) {
      expect(r.out).toMatch(line);
    }
    expect(r.out).toMatch(/--no-email: no e-mail sent/);
    expect(r.out).not.toMatch(/token=/);
    const solo = await idOf(e, 'solo_ok');
    const chats = await e.t.server.ctx.chat.chats(solo);
    expect(chats).toHaveLength(2);
    const withToo = chats.find((c) => c.peer?.username === 'solo_too');
    expect(withToo?.locked).toBe(false);
    expect(withToo?.last?.legacyText).toBe('first');
    // uGhost has no record: deleted in the original, shown as a deleted account with both sides.
    const withGhost = chats.find((c) => c.peer === null);
    expect(withGhost?.last?.legacyText).toBe('hello from a deleted account');
    expect(r.out).toMatch(/1 chat\(s\) with an account deleted in the original/);
  });
});

it('refuses a missing file argument, a missing file and a file that is not JSON', async () => {
  const lines: string[] = [];
  const out = { log: (l: string) => lines.push(l), error: (l: string) => lines.push(`ERR ${l}`) };
  const e = await importEnv('', 'use');
  try {
    expect(await runAdmin(['import-rtdb'], e.env, out)).toBe(2);
    expect(await runAdmin(['import-rtdb', 'x.json', '--nope'], e.env, out)).toBe(2);
    expect(await runAdmin(['import-rtdb', '/nonexistent/export.json'], e.env, out)).toBe(1);
    const r = await e.run(e.file('{"users": {"a": '));
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/Import stopped: /);
  } finally {
    await e.close();
  }
});

it('streams the file: entries come out while most of it is still unread, one chat at a time', async () => {
  const e = await importEnv('', 'str');
  try {
    const file = e.file(generateExport(18, 10_000).tree);
    const size = statSync(file).size;
    let read = 0;
    const seen: { top: string; at: number }[] = [];
    for await (const entry of readEntries(file, (b) => {
      read = b;
    })) {
      seen.push({ top: `${entry.top}/${entry.key.slice(0, 4)}`, at: read });
    }
    expect(size).toBeGreaterThan(1_000_000);
    // The export's first entries (archives, contacts) before the 10,000-message chat is read.
    expect(seen[0]?.at).toBeLessThan(size / 4);
    expect(seen.filter((s) => s.top.startsWith('messages/'))).toHaveLength(4);
    expect(seen.at(-1)?.top).toMatch(/^users\//);
  } finally {
    await e.close();
  }
});

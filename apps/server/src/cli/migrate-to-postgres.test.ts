/**
 * migrate-to-postgres: a SQLite deployment with accounts, chats, edits, deletions, requests,
 * sessions, keys and an attachment lands in PostgreSQL row for row, every table; a server
 * started on it (on the same attachment directory) keeps people signed in and serves their
 * chats and the attachment's blob; a second run into the same (now filled)
 * database is refused and changes nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { API } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { dropPgSchema, LOOSE_LIMITS, signUp, startTestServer } from '../test/harness.ts';
import { downloadBlob, uploadBlob } from '../test/uploads.ts';
import { WsTestClient } from '../test/ws-client.ts';
import { runAdmin } from './admin.ts';

const pgUrl = process.env.TEST_DATABASE_URL ?? '';

function output() {
  const lines: string[] = [];
  return { lines, out: { log: (l: string) => lines.push(l), error: (l: string) => lines.push(`ERROR ${l}`) } };
}

/** Every row of a table, as comparable text (PostgreSQL gives big integers as strings), sorted. */
async function rowsOf(db: { selectFrom(t: never): unknown }, table: string): Promise<string[]> {
  const rows = (await (db as never as { selectFrom(t: string): { selectAll(): { execute(): Promise<object[]> } } })
    .selectFrom(table)
    .selectAll()
    .execute()) as Record<string, unknown>[];
  return rows
    .map((r) =>
      JSON.stringify(
        Object.keys(r)
          .sort()
          .map((k) => [
            k,
            r[k] === null ? null : Buffer.isBuffer(r[k]) ? (r[k] as Buffer).toString('hex') : String(r[k]),
          ]),
      ),
    )
    .sort();
}

describe.skipIf(!pgUrl)('migrate-to-postgres', () => {
  it('moves every table row for row; the server on PostgreSQL keeps sessions and chats', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-mig-'));
    const source = await startTestServer({ config: { rateLimits: LOOSE_LIMITS }, env: { DATA_DIR: dataDir } });
    const schema = `t_mig_${Date.now().toString(36)}`;
    let target: Awaited<ReturnType<typeof startTestServer>> | null = null;
    try {
      const alice = await signUp(source);
      const bob = await signUp(source);
      const carol = await signUp(source);
      const a = await WsTestClient.connect(source, alice.client.cookie);
      const b = await WsTestClient.connect(source, bob.client.cookie);
      const sent = [];
      for (let i = 0; i < 25; i++) sent.push(await a.sendMessage(bob.user.id, `to bob ${i}`));
      for (let i = 0; i < 5; i++) await b.sendMessage(alice.user.id, `to alice ${i}`);
      const first = sent[0];
      if (!first) throw new Error('nothing sent');
      await a.editMessage(first.chatId, first.id, 'edited');
      await a.deleteMessage(first.chatId, sent[1]?.id as string);
      // Alice's sealed account data (pins, verified marks) goes along too.
      const data = 'A'.repeat(64);
      expect((await alice.client.request('PUT', '/api/me/account-data', { data, version: 1 })).status).toBe(204);
      // A photo in a message: its row moves, its blob stays in the attachment directory.
      const photo = new Uint8Array(70_000).map((_, i) => (i * 11) & 0xff);
      const blobId = await uploadBlob(source.url, alice.client.cookie as string, photo);
      await a.request('send', { ...(await a.sealedSend(bob.user.id, 'photo', 'mig-photo')), attachments: [blobId] });
      await a.close();
      await b.close();
      const sourceDb = source.server.ctx.store.db;
      const tables = [
        'users',
        'sessions',
        'email_tokens',
        'messages',
        'user_chats',
        'notifications',
        'user_notifications',
        'contacts',
        'user_settings',
        'settings',
        'user_updates',
        'audit_log',
        'rate_limits',
        'user_keys',
        'user_key_archive',
        'user_identities',
        'user_recovery',
        'user_account_data',
        'chat_keys',
        'push_subscriptions',
        'import_ids',
        'attachments',
      ];
      const before = new Map<string, string[]>();
      for (const t of tables) before.set(t, await rowsOf(sourceDb as never, t));
      expect(before.get('messages')).toHaveLength(31);
      await source.close();

      const o = output();
      expect(
        await runAdmin(['migrate-to-postgres', '--to', pgUrl, '--schema', schema], { DATA_DIR: dataDir }, o.out),
        o.lines.join('\n'),
      ).toBe(0);
      expect(o.lines.join('\n')).toMatch(/messages: 31 rows/);

      const attachmentDir = path.join(dataDir, 'attachments');
      target = await startTestServer({
        env: { DATABASE_URL: pgUrl, DATABASE_SCHEMA: schema, ATTACHMENT_DIR: attachmentDir },
      });
      const targetDb = target.server.ctx.store.db;
      for (const t of tables) {
        const after = await rowsOf(targetDb as never, t);
        if (t === 'settings') {
          // Plus the session secret, now a shared setting; the readiness probe may add its own.
          for (const row of before.get(t) ?? []) expect(after).toContain(row);
          expect(after.some((r) => r.includes('internal:sessionSecret'))).toBe(true);
        } else expect(after, t).toEqual(before.get(t));
      }
      // Signed in still (the secret came along), and the chats are served.
      const client = target.client();
      client.cookie = alice.client.cookie;
      expect((await client.get(API.session)).status).toBe(200);
      const ws = await WsTestClient.connect(target, alice.client.cookie);
      const chats = await ws.request('chats', {});
      expect(JSON.stringify(chats)).toContain(bob.user.id);
      await ws.close();
      expect(carol.user.id).toBeTruthy();
      const blob = await downloadBlob(target.url, bob.client.cookie, blobId);
      expect(blob.status).toBe(200);
      expect(blob.bytes).toEqual(photo);

      // Again into the same database: refused, nothing doubled.
      const again = output();
      expect(
        await runAdmin(['migrate-to-postgres', '--to', pgUrl, '--schema', schema], { DATA_DIR: dataDir }, again.out),
      ).toBe(1);
      expect(again.lines.join('\n')).toMatch(/already has rows/);
      expect(await rowsOf(targetDb as never, 'messages')).toHaveLength(31);
    } finally {
      await target?.close();
      await dropPgSchema(pgUrl, schema);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('says what it needs', async () => {
    const o = output();
    expect(await runAdmin(['migrate-to-postgres'], { DATA_DIR: '/nonexistent-parley' }, o.out)).toBe(2);
    expect(o.lines.join('\n')).toMatch(/Give the PostgreSQL database/);
  });
});

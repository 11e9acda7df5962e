/**
 * What becomes of a blob (every setup of test/attachment-server.ts): it goes with its
 * message, with its uploader's account, a day after it was never sent, and at once when its
 * upload is dropped while a PATCH runs; an old upload sent while the sweep runs stays; and
 * the chat's media are paged from the messages that carry blobs.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { API, chatIdOf } from '@app/protocol';
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ATTACHMENT_UNSENT_MS } from '../storage/attachments/attachment-store.ts';
import { authOf } from '../test/accounts.ts';
import { ATTACHMENT_SETUPS, noise, useAttachmentServer } from '../test/attachment-server.ts';
import { signUp } from '../test/harness.ts';
import { downloadBlob, tusCreate, uploadBlob } from '../test/uploads.ts';
import { WsTestClient } from '../test/ws-client.ts';

describe.each(ATTACHMENT_SETUPS)('attachment lifecycle on $name, blobs in $store', (setup) => {
  const { url, s3 } = setup;
  const { t, cookieOf, usedBy, stored, sendWith } = useAttachmentServer(setup, 'attachlife');

  it.runIf(!s3)(
    "pages a chat's media: its messages with attachments, not deleted, newest first, for its people only",
    async () => {
      const [alice, bob, carol] = [await signUp(t), await signUp(t), await signUp(t)];
      const ws = await WsTestClient.connect(t, cookieOf(alice));
      const withFile = async (text: string) => {
        const id = await uploadBlob(t.url, cookieOf(alice), noise(1000));
        return (await ws.request('send', { ...(await ws.sealedSend(bob.user.id, text)), attachments: [id] })) as {
          message: { id: string; chatId: string };
        };
      };
      const first = await withFile('one');
      await ws.sendMessage(bob.user.id, 'just words');
      const second = await withFile('two');
      const gone = await withFile('three');
      await ws.deleteMessage(gone.message.chatId, gone.message.id);
      const third = await withFile('four');
      await ws.close();

      const b = await WsTestClient.connect(t, cookieOf(bob));
      type Page = { messages: { id: string; timestamp: number }[]; hasMore: boolean };
      const newest = (await b.request('history', { peerId: alice.user.id, media: true, limit: 2 })) as Page;
      expect(newest.messages.map((m) => m.id)).toEqual([second.message.id, third.message.id]);
      expect(newest.hasMore).toBe(true);
      const cursor = { timestamp: newest.messages[0]?.timestamp as number, id: newest.messages[0]?.id as string };
      const older = (await b.request('history', {
        peerId: alice.user.id,
        media: true,
        limit: 2,
        before: cursor,
      })) as Page;
      expect(older.messages.map((m) => m.id)).toEqual([first.message.id]);
      expect(older.hasMore).toBe(false);
      // Paged up only; and nobody else's.
      const down = await b.requestError('history', { peerId: alice.user.id, media: true, after: cursor });
      expect(down.code).toBe('invalid_frame');
      await b.close();
      const c = await WsTestClient.connect(t, cookieOf(carol));
      const stranger = (await c.request('history', { peerId: alice.user.id, media: true })) as Page;
      expect(stranger.messages).toEqual([]);
      await c.close();
    },
  );

  it('drops what a PATCH stored when its upload was cancelled while it ran', async () => {
    const alice = await signUp(t);
    const c = cookieOf(alice);
    const blob = noise(200_000);
    const created = await tusCreate(t.url, c, blob.length);
    const id = created.location.split('/').at(-1) as string;
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(t.url + created.location, {
        method: 'PATCH',
        headers: {
          cookie: `sid=${c}`,
          'tus-resumable': '1.0.0',
          'content-type': 'application/offset+octet-stream',
          'upload-offset': '0',
          'content-length': String(blob.length),
        },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      // Half the body, then the upload is cancelled, then the rest.
      req.write(blob.subarray(0, 100_000), async () => {
        await new Promise((r) => setTimeout(r, 100));
        expect((await alice.client.del(created.location)).status).toBe(204);
        req.end(blob.subarray(100_000));
      });
    });
    expect(status).toBe(404);
    expect(await stored(id)).toBe(false);
    expect(await usedBy(alice.user.id)).toBe(0);
  });

  it.runIf(url && !s3)('keeps a day-old upload that is sent while the sweep runs (PostgreSQL)', async () => {
    const [alice, bob] = [await signUp(t), await signUp(t)];
    const old = await uploadBlob(t.url, cookieOf(alice), noise(3000));
    const { db } = t.server.ctx.attachments.store;
    await db
      .updateTable('attachments')
      .set({ created_at: Date.now() - ATTACHMENT_UNSENT_MS - 60_000 })
      .where('id', '=', old)
      .execute();
    // A send binds it as the server does (its row locked, not committed yet, its message not
    // stored yet) while the sweep reads it as a day-old leftover.
    const msgId = randomUUID();
    const sender = new pg.Client({ connectionString: t.config.databaseUrl ?? '' });
    await sender.connect();
    try {
      const schema = await sql<{ s: string }>`select current_schema() as s`.execute(db);
      await sender.query(`SET search_path TO ${schema.rows[0]?.s}`);
      await sender.query('BEGIN');
      await sender.query('UPDATE attachments SET chat_id = $1, msg_id = $2, created_at = $3 WHERE id = $4', [
        chatIdOf(alice.user.id, bob.user.id),
        msgId,
        Date.now(),
        old,
      ]);
      const sweeping = t.server.ctx.attachments.collect(Date.now());
      await new Promise((r) => setTimeout(r, 300));
      await sender.query('COMMIT');
      expect(await sweeping).toBe(0);
    } finally {
      await sender.end();
    }
    // The message is stored after: its file is there for the peer.
    await sendWith(alice, bob.user.id, [old], msgId);
    expect((await downloadBlob(t.url, cookieOf(bob), old)).status).toBe(200);
  });

  it('removes the blob with its message, with its uploader, and a day after an upload was never sent', async () => {
    const [alice, bob] = [await signUp(t), await signUp(t)];
    const sent = await uploadBlob(t.url, cookieOf(alice), noise(5000));
    const unsent = await uploadBlob(t.url, cookieOf(alice), noise(3000));
    const { message } = await sendWith(alice, bob.user.id, [sent]);
    expect(await stored(sent)).toBe(true);

    // Deleted by its sender: gone for both, from the disk, and off the quota.
    const ws = await WsTestClient.connect(t, cookieOf(alice));
    await ws.deleteMessage(chatIdOf(alice.user.id, bob.user.id), message.id);
    await ws.close();
    expect((await downloadBlob(t.url, cookieOf(bob), sent)).status).toBe(404);
    expect((await downloadBlob(t.url, cookieOf(alice), sent)).status).toBe(404);
    expect(await stored(sent)).toBe(false);
    expect(await usedBy(alice.user.id)).toBe(3000);

    // Never sent: kept a day, then collected.
    const { attachments } = t.server.ctx;
    expect(await attachments.collect(Date.now())).toBe(0);
    expect(await attachments.collect(Date.now() + ATTACHMENT_UNSENT_MS + 1000)).toBeGreaterThanOrEqual(1);
    expect(await stored(unsent)).toBe(false);
    expect(await usedBy(alice.user.id)).toBe(0);

    // The uploader's account deleted: every blob of theirs goes.
    const kept = await uploadBlob(t.url, cookieOf(bob), noise(2000));
    await sendWith(bob, alice.user.id, [kept]);
    const del = await bob.client.del(API.deleteAccount, { auth: await authOf(bob.client, bob.input.password) });
    expect(del.status).toBe(204);
    expect(await stored(kept)).toBe(false);
    expect((await downloadBlob(t.url, cookieOf(alice), kept)).status).toBe(404);
  });
});

/**
 * Attachments against a real server, with raw tus and HTTP requests (SQLite, and PostgreSQL
 * when TEST_DATABASE_URL is set; blobs in files, and in a real S3-speaking server on SQLite):
 * an upload resumed and read back, also after a cut connection; who may upload into,
 * resume, read and drop which upload; the size limit, the quota and what the server refuses
 * to learn; and the blob going with its message, its uploader's account, or a day unsent.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { sealedAttachmentSize } from '@app/e2ee/attachment';
import { API, chatIdOf } from '@app/protocol';
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ATTACHMENT_UNSENT_MS } from '../storage/attachments/attachment-store.ts';
import { authOf } from '../test/accounts.ts';
import { ENGINES, LOOSE_LIMITS, signUp, useTestServer } from '../test/harness.ts';
import { useS3 } from '../test/s3.ts';
import { downloadBlob, tusCreate, tusHead, tusPatch, uploadBlob } from '../test/uploads.ts';
import { WsTestClient } from '../test/ws-client.ts';

const MAX = 300_000;
const QUOTA = 700_000;

function noise(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 7919 + 13) & 0xff;
  return out;
}

const SETUPS = [
  ...ENGINES.map((e) => ({ ...e, s3: false, store: 'files' })),
  { ...ENGINES[0], s3: true, store: 'S3' },
] as const;

/** PATCH `bytes` as `declared` bytes long, cut off after `sent` of them (the socket closed). */
function cutPatch(url: string, cookie: string, offset: number, bytes: Uint8Array, sent: number): Promise<void> {
  return new Promise((resolve) => {
    const req = request(url, {
      method: 'PATCH',
      headers: {
        cookie: `sid=${cookie}`,
        'tus-resumable': '1.0.0',
        'content-type': 'application/offset+octet-stream',
        'upload-offset': String(offset),
        'content-length': String(bytes.length),
      },
    });
    req.on('error', () => resolve());
    req.on('response', () => resolve());
    req.write(bytes.subarray(0, sent), () => setTimeout(() => req.destroy(), 100));
  });
}

describe.each(SETUPS)('attachments on $name, blobs in $store', ({ url, s3 }) => {
  const bucket = s3 ? useS3() : null;
  const t = useTestServer({
    engine: url,
    tag: 'attachments',
    config: {
      rateLimits: LOOSE_LIMITS,
      attachmentMaxBytes: MAX,
      attachmentQuotaBytes: QUOTA,
      get s3() {
        return bucket?.settings ?? null;
      },
    },
  });
  const cookieOf = (u: { client: { cookie: string | null } }) => u.client.cookie as string;
  const usedBy = async (userId: string) =>
    Number(
      (
        await t.server.ctx.attachments.store.db
          .selectFrom('users')
          .select('attachment_bytes')
          .where('id', '=', userId)
          .executeTakeFirstOrThrow()
      ).attachment_bytes,
    );
  const stored = async (id: string) => (await t.server.ctx.attachments.blobs.offset(id)) !== null;

  /** `from` sends `to` a message carrying `ids`; the message. */
  async function sendWith(
    from: { user: { id: string }; client: { cookie: string | null } },
    to: string,
    ids: string[],
    msgId = `att-${Math.random().toString(36).slice(2, 12)}`,
  ) {
    const ws = await WsTestClient.connect(t, cookieOf(from));
    try {
      const body = await ws.sealedSend(to, 'a photo', msgId);
      return (await ws.request('send', { ...body, attachments: ids })) as { message: { id: string; chatId: string } };
    } finally {
      await ws.close();
    }
  }

  it('resumes an upload, reads it back whole and in ranges, and lets the peer read it once it is in a message', async () => {
    const [alice, bob, carol] = [await signUp(t), await signUp(t), await signUp(t)];
    const blob = noise(200_000);
    const created = await tusCreate(t.url, cookieOf(alice), blob.length);
    expect(created.status).toBe(201);
    expect(created.location).toMatch(/^\/api\/attachments\/uploads\/[A-Za-z0-9_-]{22}$/);
    const id = created.location.split('/').at(-1) as string;
    expect((await tusPatch(t.url, cookieOf(alice), created.location, 0, blob.subarray(0, 120_000))).status).toBe(204);
    // Not complete: nobody reads it yet, and a send cannot carry it.
    expect((await downloadBlob(t.url, cookieOf(alice), id)).status).toBe(404);
    const early = await WsTestClient.connect(t, cookieOf(alice));
    const refused = await early.requestError('send', {
      ...(await early.sealedSend(bob.user.id, 'too soon', 'att-too-soon')),
      attachments: [id],
    });
    expect(refused).toMatchObject({ code: 'not_found', message: 'Attachment not found. Send it again.' });
    await early.close();
    // Resumed where the server says it got to.
    const head = await tusHead(t.url, cookieOf(alice), created.location);
    expect(head.headers.get('upload-offset')).toBe('120000');
    expect((await tusPatch(t.url, cookieOf(alice), created.location, 120_000, blob.subarray(120_000))).status).toBe(
      204,
    );

    const own = await downloadBlob(t.url, cookieOf(alice), id);
    expect(own.status).toBe(200);
    expect(own.bytes).toEqual(blob);
    expect(Object.fromEntries(own.headers)).toMatchObject({
      'content-type': 'application/octet-stream',
      'x-content-type-options': 'nosniff',
      'content-disposition': 'attachment',
      'content-security-policy': "default-src 'none'; sandbox",
      'accept-ranges': 'bytes',
      'content-length': '200000',
    });
    // Not in a message: only its uploader reads it.
    expect((await downloadBlob(t.url, cookieOf(bob), id)).status).toBe(404);

    await sendWith(alice, bob.user.id, [id]);
    const part = await downloadBlob(t.url, cookieOf(bob), id, 'bytes=1000-1999');
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 1000-1999/200000');
    expect(part.bytes).toEqual(blob.subarray(1000, 2000));
    expect((await downloadBlob(t.url, cookieOf(bob), id, 'bytes=300000-')).status).toBe(416);
    // Revalidated, never served from a stale copy without the check.
    const again = await fetch(`${t.url}${API.attachments}/${id}`, {
      headers: { cookie: `sid=${cookieOf(bob)}`, 'if-none-match': `"${id}"` },
    });
    expect(again.status).toBe(304);

    // Anyone else, signed out, or with a made-up id: not found (or not signed in).
    expect((await downloadBlob(t.url, cookieOf(carol), id)).status).toBe(404);
    expect((await downloadBlob(t.url, null, id)).status).toBe(401);
    expect((await downloadBlob(t.url, cookieOf(bob), '../../session-secret')).status).toBe(404);
    expect((await downloadBlob(t.url, cookieOf(bob), 'A'.repeat(22))).status).toBe(404);
    const cnot = await fetch(`${t.url}${API.attachments}/${id}`, {
      headers: { cookie: `sid=${cookieOf(carol)}`, 'if-none-match': `"${id}"` },
    });
    expect(cnot.status).toBe(404);
  });

  it('keeps each upload to its uploader: nobody else resumes, drops, or sends it; a blocked peer reads nothing', async () => {
    const [alice, bob] = [await signUp(t), await signUp(t)];
    const created = await tusCreate(t.url, cookieOf(alice), 1000);
    const id = created.location.split('/').at(-1) as string;
    expect((await tusHead(t.url, cookieOf(bob), created.location)).status).toBe(404);
    expect((await tusPatch(t.url, cookieOf(bob), created.location, 0, noise(1000))).status).toBe(404);
    expect((await tusPatch(t.url, null, created.location, 0, noise(1000))).status).toBe(401);
    expect((await tusCreate(t.url, null, 1000)).status).toBe(401);
    expect((await bob.client.del(`${API.attachmentUploads}/${id}`)).status).toBe(404);
    expect((await tusPatch(t.url, cookieOf(alice), created.location, 0, noise(1000))).status).toBe(204);
    // Bob names Alice's upload in a message of his: refused, and it stays hers alone.
    const ws = await WsTestClient.connect(t, cookieOf(bob));
    const stolen = await ws.requestError('send', {
      ...(await ws.sealedSend(alice.user.id, 'mine now', 'att-stolen')),
      attachments: [id],
    });
    expect(stolen.code).toBe('not_found');
    await ws.close();
    expect((await downloadBlob(t.url, cookieOf(bob), id)).status).toBe(404);
    // Bound to a message the server then refused (to nobody): free again for the next one.
    const own = await WsTestClient.connect(t, cookieOf(alice));
    const refused = await own.requestError('send', {
      ...(await own.sealedSend(bob.user.id, 'first try', 'att-first-try')),
      to: 'A'.repeat(20),
      attachments: [id],
    });
    expect(refused.code).not.toBe('not_found');
    await own.request('send', {
      ...(await own.sealedSend(bob.user.id, 'second try', 'att-second')),
      attachments: [id],
    });
    await own.close();
    expect((await downloadBlob(t.url, cookieOf(bob), id)).status).toBe(200);
    // Blocked by the administrator: Bob reads nothing more, and uploads nothing.
    await t.server.ctx.store.db.updateTable('users').set({ blocked: 1 }).where('id', '=', bob.user.id).execute();
    expect((await downloadBlob(t.url, cookieOf(bob), id)).status).toBe(403);
    expect((await tusCreate(t.url, cookieOf(bob), 1000)).status).toBe(401);
    // tus's own GET and termination are not served: only ours.
    const tusGet = await fetch(`${t.url}${created.location}`, { headers: { cookie: `sid=${cookieOf(alice)}` } });
    expect(tusGet.status).toBe(404);
  });

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

  it("takes a PATCH only as tus has it: at the upload's offset, in its type, sized, and resumed after a cut", async () => {
    const alice = await signUp(t);
    const c = cookieOf(alice);
    const blob = noise(250_000);
    const created = await tusCreate(t.url, c, blob.length);
    const at = (offset: number, headers: Record<string, string>, body: RequestInit['body']) =>
      fetch(t.url + created.location, {
        method: 'PATCH',
        headers: { cookie: `sid=${c}`, 'upload-offset': String(offset), ...headers },
        body,
        duplex: 'half',
      } as RequestInit);
    const tusHeaders = { 'tus-resumable': '1.0.0', 'content-type': 'application/offset+octet-stream' };
    const offsetNow = async () => (await tusHead(t.url, c, created.location)).headers.get('upload-offset');
    expect((await at(0, { 'content-type': 'application/offset+octet-stream' }, noise(10))).status).toBe(412);
    expect((await at(0, { 'tus-resumable': '1.0.0', 'content-type': 'text/plain' }, noise(10))).status).toBe(415);
    expect((await at(5, tusHeaders, noise(10))).status).toBe(409);
    // A length is required (a streamed body has none), and a part short of 64 KiB must end the upload.
    const streamed = new ReadableStream({
      start(ctl) {
        ctl.enqueue(blob.subarray(0, 100_000));
        ctl.close();
      },
    });
    expect((await at(0, tusHeaders, streamed)).status).toBe(411);
    const small = await tusPatch(t.url, c, created.location, 0, blob.subarray(0, 1000));
    expect(small.status).toBe(400);
    expect((await tusPatch(t.url, c, created.location, 0, blob.subarray(0, 100_000))).status).toBe(204);
    // 50,000 more than the 150,000 left: refused before a byte is kept.
    const over = await tusPatch(t.url, c, created.location, 100_000, noise(200_000));
    expect(over.status).toBe(413);
    expect(await offsetNow()).toBe('100000');

    // Cut off halfway: the upload is where the store got to, and goes on from there.
    await cutPatch(t.url + created.location, c, 100_000, blob.subarray(100_000), 70_000);
    const resumed = Number(await offsetNow());
    expect(resumed).toBeGreaterThanOrEqual(100_000);
    expect(resumed).toBeLessThanOrEqual(170_000);
    expect((await tusPatch(t.url, c, created.location, resumed, blob.subarray(resumed))).status).toBe(204);
    const id = created.location.split('/').at(-1) as string;
    const whole = await downloadBlob(t.url, c, id);
    expect(whole.status).toBe(200);
    expect(whole.bytes).toEqual(blob);
  });

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

  it('refuses a file over the limit, an upload over the quota, names and types, and an unknown length', async () => {
    const alice = await signUp(t);
    const c = cookieOf(alice);
    const over = await tusCreate(t.url, c, sealedAttachmentSize(MAX) + 1);
    expect(over.status).toBe(413);
    expect((await tusCreate(t.url, c, sealedAttachmentSize(MAX))).status).toBe(201);
    // Even an empty file seals to 16 bytes.
    expect((await tusCreate(t.url, c, 0)).status).toBe(400);
    expect((await tusCreate(t.url, c, 15)).status).toBe(400);
    const named = await tusCreate(t.url, c, 16, { 'upload-metadata': `filename ${btoa('holiday.jpg')}` });
    expect(named.status).toBe(400);
    expect(JSON.parse(named.body)).toMatchObject({ message: 'Upload-Metadata is not accepted' });
    const deferred = await tusCreate(t.url, c, 10, { 'upload-length': '', 'upload-defer-length': '1' });
    expect([400, 412]).toContain(deferred.status);

    // The quota: 700,000 bytes; 300,016 are taken.
    expect((await tusCreate(t.url, c, 300_000)).status).toBe(201);
    const full = await tusCreate(t.url, c, 100_000);
    expect(full.status).toBe(413);
    expect(JSON.parse(full.body)).toMatchObject({
      error: 'payload_too_large',
      message: 'Your attachments are over your storage quota. Delete some to send more.',
    });
    expect(await usedBy(alice.user.id)).toBe(sealedAttachmentSize(MAX) + 300_000);
    // Many at once on the edge of the quota: exactly as many as fit are taken.
    const left = QUOTA - (await usedBy(alice.user.id));
    const racing = await Promise.all(Array.from({ length: 8 }, () => tusCreate(t.url, c, Math.floor(left / 3))));
    expect(racing.filter((r) => r.status === 201)).toHaveLength(3);
    expect(await usedBy(alice.user.id)).toBeLessThanOrEqual(QUOTA);
    // A dropped upload gives its bytes back.
    const dropped = racing.find((r) => r.status === 201)?.location as string;
    expect((await alice.client.del(dropped)).status).toBe(204);
    expect((await tusCreate(t.url, c, Math.floor(left / 3))).status).toBe(201);
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

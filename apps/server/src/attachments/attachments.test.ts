/**
 * Uploads and downloads against a real server, with raw tus and HTTP requests (every setup of
 * test/attachment-server.ts): an upload resumed and read back, also after a cut connection;
 * who may upload into, resume, read and drop which upload; the size limit, the quota and
 * what the server refuses to learn.
 */
import { request } from 'node:http';
import { sealedAttachmentSize } from '@app/e2ee/attachment';
import { API } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import {
  ATTACHMENT_SETUPS,
  ATTACHMENT_TEST_MAX as MAX,
  noise,
  ATTACHMENT_TEST_QUOTA as QUOTA,
  useAttachmentServer,
} from '../test/attachment-server.ts';
import { signUp } from '../test/harness.ts';
import { downloadBlob, tusCreate, tusHead, tusPatch } from '../test/uploads.ts';
import { WsTestClient } from '../test/ws-client.ts';

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

describe.each(ATTACHMENT_SETUPS)('attachments on $name, blobs in $store', (setup) => {
  const { t, cookieOf, usedBy, sendWith } = useAttachmentServer(setup, 'attachments');

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
});

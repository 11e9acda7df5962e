/**
 * Attachments across two server processes on one PostgreSQL and Redis, sharing one
 * attachment directory (as every deployment of several processes on files must) or one S3
 * bucket (and then nothing on disk): an upload begun on
 * one resumes on the other, is sent from the other, read from the first, and deleted with
 * its message wherever that happens. Runs when TEST_DATABASE_URL and TEST_REDIS_URL are set.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chatIdOf } from '@app/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCALE_OUT_SKIP, signUp, startServerPair, type TestServer } from '../test/harness.ts';
import { s3Env, startS3, type TestS3 } from '../test/s3.ts';
import { downloadBlob, tusCreate, tusHead, tusPatch } from '../test/uploads.ts';
import { WsTestClient } from '../test/ws-client.ts';

if (SCALE_OUT_SKIP) console.warn(`attachments-scale-out.test.ts skipped: ${SCALE_OUT_SKIP}`);

describe.skipIf(Boolean(SCALE_OUT_SKIP)).each(['a shared directory', 'one S3 bucket'])(
  'attachments on two processes, blobs in %s',
  (store) => {
    let pair: { a: TestServer; b: TestServer; close(): Promise<void> };
    let s3: TestS3 | null = null;
    const shared = mkdtempSync(path.join(tmpdir(), 'parley-shared-attachments-'));
    beforeAll(async () => {
      s3 = store === 'one S3 bucket' ? await startS3() : null;
      // With S3, each process has its own DATA_DIR and no ATTACHMENT_DIR in common.
      pair = await startServerPair('attach', { env: s3 ? s3Env(s3.settings) : { ATTACHMENT_DIR: shared } });
    });
    afterAll(async () => {
      await pair?.close();
      await s3?.close();
      rmSync(shared, { recursive: true, force: true });
    });

    it('an upload begun on one process resumes, is sent and read on the other, and goes with its message', async () => {
      const { a, b } = pair;
      const alice = await signUp(a);
      const bob = await signUp(b);
      const cookie = alice.client.cookie as string;
      const bytes = new Uint8Array(150_000).map((_, i) => (i * 7) & 0xff);
      const created = await tusCreate(a.url, cookie, bytes.length);
      expect((await tusPatch(a.url, cookie, created.location, 0, bytes.subarray(0, 70_000))).status).toBe(204);
      expect((await tusHead(b.url, cookie, created.location)).headers.get('upload-offset')).toBe('70000');
      expect((await tusPatch(b.url, cookie, created.location, 70_000, bytes.subarray(70_000))).status).toBe(204);
      const id = created.location.split('/').at(-1) as string;

      const ws = await WsTestClient.connect(b, cookie);
      const sent = (await ws.request('send', {
        ...(await ws.sealedSend(bob.user.id, 'across', 'across-0001')),
        attachments: [id],
      })) as { message: { id: string } };
      const got = await downloadBlob(a.url, bob.client.cookie, id);
      expect(got.status).toBe(200);
      expect(got.bytes).toEqual(bytes);

      await ws.deleteMessage(chatIdOf(alice.user.id, bob.user.id), sent.message.id);
      await ws.close();
      expect(await a.server.ctx.attachments.blobs.offset(id)).toBeNull();
      expect((await downloadBlob(a.url, bob.client.cookie, id)).status).toBe(404);
    });
  },
);

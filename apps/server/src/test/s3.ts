/**
 * A real S3-speaking server for tests: s3rver (from npm), in this process on a free port,
 * keeping its objects in a temporary directory. Blobs in it travel the same HTTP, signing
 * and XML as with any S3-compatible service.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll } from 'vitest';
import type { S3Settings } from '../attachments/s3-blob-store.ts';

export interface TestS3 {
  settings: S3Settings;
  close(): Promise<void>;
}

/** s3rver's own keys: it checks every request's signature against them. */
const KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** An S3 server holding one empty bucket, `bucket`; `prefix` starts the blobs' keys. */
export async function startS3(bucket = 'parley', prefix = 'attachments/'): Promise<TestS3> {
  const directory = mkdtempSync(path.join(tmpdir(), 'parley-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  return {
    settings: { url: `http://127.0.0.1:${port}`, bucket, region: 'us-east-1', prefix, credentials: KEYS },
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * An S3 server for a test file: started before its tests, closed after. `settings` is read
 * inside a test or a later beforeAll (a test server's config can name it with a getter).
 */
export function useS3(): { readonly settings: S3Settings } {
  let s3: TestS3 | null = null;
  beforeAll(async () => {
    s3 = await startS3();
  });
  afterAll(async () => {
    await s3?.close();
  });
  return {
    get settings() {
      if (!s3) throw new Error('the S3 server is not ready (use it inside a test)');
      return s3.settings;
    },
  };
}

/** The environment that points a server, or the admin CLI, at `s` (S3_* variables). */
export function s3Env(s: S3Settings): Record<string, string> {
  return {
    S3_BUCKET: s.bucket,
    S3_URL: s.url ?? '',
    S3_REGION: s.region,
    S3_PREFIX: s.prefix,
    S3_ACCESS_KEY_ID: s.credentials?.accessKeyId ?? '',
    S3_SECRET_ACCESS_KEY: s.credentials?.secretAccessKey ?? '',
  };
}

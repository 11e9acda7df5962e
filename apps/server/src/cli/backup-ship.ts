/**
 * Where backups go after they are made (backup.ts): a copy in S3-compatible object storage
 * (`--upload`, BACKUP_S3_*), and retention (`--keep N`): only the newest N backups named as
 * `backup --dir` names them are kept, in the directory and under the bucket's prefix. A big
 * backup goes up in parts (multipart upload), a part in memory at a time; a failed upload is
 * aborted, leaving no part behind.
 */
import { createReadStream, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import type { S3Settings } from '../attachments/s3-blob-store.ts';

/** `parley-20261128-031500Z.tar.gz`, and `.age` after it when encrypted: sorts by time. */
export const BACKUP_NAME = /^parley-\d{8}-\d{6}Z\.tar\.gz(\.age)?$/;

/** The name `backup --dir` gives a backup made at `at`. */
export function backupName(at: Date, encrypted: boolean): string {
  const iso = at.toISOString(); // 2026-11-28T03:15:00.000Z
  const stamp = `${iso.slice(0, 10).replaceAll('-', '')}-${iso.slice(11, 19).replaceAll(':', '')}Z`;
  return `parley-${stamp}.tar.gz${encrypted ? '.age' : ''}`;
}

/** The names beyond the newest `keep` (of those named like backups), oldest first. */
export function beyond(names: readonly string[], keep: number): string[] {
  const ours = names.filter((n) => BACKUP_NAME.test(n)).sort();
  return ours.slice(0, Math.max(0, ours.length - keep));
}

/** Removes the backups in `dir` beyond the newest `keep`; their names. */
export function pruneDir(dir: string, keep: number): string[] {
  const old = beyond(readdirSync(dir), keep);
  for (const name of old) rmSync(path.join(dir, name), { force: true });
  return old;
}

/** S3 asks at least 5 MiB of every part but the last. */
export const PART_BYTES = 64 * 1024 * 1024;

async function* partsOf(file: string, partBytes: number): AsyncGenerator<Buffer> {
  let part: Buffer[] = [];
  let size = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 })) {
    part.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size >= partBytes) {
      const all = Buffer.concat(part);
      yield all.subarray(0, partBytes);
      part = [all.subarray(partBytes)];
      size = all.length - partBytes;
    }
  }
  if (size > 0) yield Buffer.concat(part);
}

/** Puts `file` at `key` of the bucket: in one request when small, else in parts. */
export async function uploadFile(
  s3: S3Client,
  settings: S3Settings,
  file: string,
  key: string,
  partBytes = PART_BYTES,
): Promise<void> {
  const Bucket = settings.bucket;
  const size = statSync(file).size;
  if (size <= partBytes) {
    await s3.send(new PutObjectCommand({ Bucket, Key: key, Body: createReadStream(file), ContentLength: size }));
    return;
  }
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: key }));
  try {
    const Parts: { ETag: string | undefined; PartNumber: number }[] = [];
    for await (const body of partsOf(file, partBytes)) {
      const PartNumber = Parts.length + 1;
      const r = await s3.send(new UploadPartCommand({ Bucket, Key: key, UploadId, PartNumber, Body: body }));
      Parts.push({ ETag: r.ETag, PartNumber });
    }
    await s3.send(new CompleteMultipartUploadCommand({ Bucket, Key: key, UploadId, MultipartUpload: { Parts } }));
  } catch (e) {
    await s3.send(new AbortMultipartUploadCommand({ Bucket, Key: key, UploadId })).catch(() => {});
    throw e;
  }
}

/** Removes the backups under the prefix beyond the newest `keep`; their keys. */
export async function pruneBucket(s3: S3Client, settings: S3Settings, keep: number): Promise<string[]> {
  const names: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: settings.bucket, Prefix: settings.prefix, ContinuationToken: token }),
    );
    for (const o of page.Contents ?? []) if (o.Key) names.push(o.Key.slice(settings.prefix.length));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  const old = beyond(names, keep);
  for (const name of old) {
    await s3.send(new DeleteObjectCommand({ Bucket: settings.bucket, Key: `${settings.prefix}${name}` }));
  }
  return old.map((n) => `${settings.prefix}${n}`);
}

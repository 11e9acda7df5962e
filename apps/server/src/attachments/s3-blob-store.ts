/**
 * Blobs in S3-compatible object storage (S3_BUCKET; docs/attachments.md "Storage"). Every
 * process reaches the same bucket, so nothing is shared on disk.
 *
 * A blob is kept as its pieces: one object per PATCH, `<prefix><id>/<offset>` (the offset in
 * 16 digits, so names sort as the bytes do), and an empty piece at 0 when the upload is made.
 * - Where an upload is: the pieces that follow on from 0 without a gap, listed.
 * - A PATCH is one PutObject of exactly its Content-Length: S3 keeps a whole object or none,
 *   so a cut connection leaves the upload where it was, and the client sends that part again.
 * - A download reads the pieces a range covers, one after the other.
 * This asks of the store only what every S3-compatible server has (PutObject, GetObject with
 * a range, ListObjectsV2, DeleteObject): no multipart uploads, whose listing and part-size
 * rules differ between servers, and no DeleteObjects, whose checksum some refuse. A PATCH
 * carries at least MIN_PATCH_BYTES (64 KiB) unless it ends the upload (tus-uploads.ts), so a
 * 100 MB blob is at most 1,600 objects; the browser's 8 MiB PATCHes make it 13.
 */
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { attachmentIdSchema } from '@app/protocol';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { BlobMissingError, type BlobStore } from './blob-store.ts';

export interface S3Settings {
  /** The endpoint (S3_URL); null: AWS's own for the region. */
  url: string | null;
  bucket: string;
  region: string;
  /** Key prefix inside the bucket, e.g. `attachments/`. */
  prefix: string;
  /** S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY; null: the AWS SDK's usual places (environment, instance role). */
  credentials: { accessKeyId: string; secretAccessKey: string } | null;
}

interface Piece {
  key: string;
  offset: number;
  size: number;
}

const OFFSET_DIGITS = 16;
/** Deletes sent at once (one request per piece). */
const DELETES_AT_ONCE = 16;

/** The bytes a run of pieces holds. */
const lengthOf = (run: readonly Piece[]) => run.reduce((n, p) => n + p.size, 0);

/** `body` as `length` bytes exactly: one that ends early fails (a cut connection), never a short piece. */
async function* exactly(body: AsyncIterable<Buffer>, length: number): AsyncGenerator<Buffer> {
  let seen = 0;
  for await (const chunk of body) {
    seen += chunk.length;
    if (seen > length) throw new Error('More bytes than Content-Length');
    yield chunk;
  }
  if (seen < length) throw new Error(`The body ended after ${seen} of ${length} bytes`);
}

/** A client for the bucket of `settings` (attachments, or backups: backup-ship.ts). */
export function s3ClientOf(settings: S3Settings): S3Client {
  return new S3Client({
    region: settings.region,
    ...(settings.url ? { endpoint: settings.url, forcePathStyle: true } : {}),
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
    // Checksums only where S3 asks for them: other S3-speaking servers refuse the newer ones.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // Uploads and downloads stream through as slowly as their browsers go: more sockets than
    // the SDK's 50, and one idle for a minute is given up, so a few stalled ones hold none for good.
    requestHandler: { requestTimeout: 60_000, httpAgent: { maxSockets: 500 }, httpsAgent: { maxSockets: 500 } },
  });
}

export class S3BlobStore implements BlobStore {
  readonly where: string;
  private readonly s3: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(settings: S3Settings) {
    this.bucket = settings.bucket;
    this.prefix = settings.prefix;
    this.where = `s3://${settings.bucket}/${settings.prefix}`;
    this.s3 = s3ClientOf(settings);
  }

  private folder(id: string): string {
    return `${this.prefix}${attachmentIdSchema.parse(id)}/`;
  }

  private key(id: string, offset: number): string {
    return `${this.folder(id)}${String(offset).padStart(OFFSET_DIGITS, '0')}`;
  }

  /** Every object under `prefix`, a page at a time. */
  private async *objects(prefix: string): AsyncGenerator<{ key: string; size: number }> {
    let token: string | undefined;
    do {
      const page = await this.s3.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      for (const o of page.Contents ?? []) if (o.Key) yield { key: o.Key, size: o.Size ?? 0 };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /** The pieces that follow on from 0 without a gap, in order; null when the upload has none. */
  private async pieces(id: string): Promise<Piece[] | null> {
    const folder = this.folder(id);
    const found: Piece[] = [];
    for await (const o of this.objects(folder)) {
      found.push({ key: o.key, offset: Number(o.key.slice(folder.length)), size: o.size });
    }
    if (found.length === 0) return null;
    found.sort((a, b) => a.offset - b.offset);
    const run: Piece[] = [];
    let end = 0;
    for (const p of found) {
      if (p.offset !== end) break;
      if (p.size > 0 || run.length === 0) run.push(p);
      end += p.size;
    }
    return run;
  }

  async create(id: string): Promise<void> {
    await this.s3.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.key(id, 0), Body: '' }));
  }

  async offset(id: string): Promise<number | null> {
    const run = await this.pieces(id);
    return run ? lengthOf(run) : null;
  }

  async append(id: string, offset: number, body: Readable, length: number): Promise<number> {
    if (length === 0) return offset;
    // The SDK pipes the body on without watching it: a body cut short must end the request.
    const abort = new AbortController();
    const source = Readable.from(exactly(body, length));
    source.on('error', (e) => abort.abort(e));
    try {
      await this.s3.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: this.key(id, offset), Body: source, ContentLength: length }),
        { abortSignal: abort.signal },
      );
    } finally {
      source.destroy();
    }
    return offset + length;
  }

  async read(id: string, range: { start: number; end: number }): Promise<Readable> {
    const run = await this.pieces(id);
    if (!run || lengthOf(run) <= range.end) throw new BlobMissingError(id);
    const s3 = this.s3;
    const bucket = this.bucket;
    async function* bytes(): AsyncGenerator<Uint8Array> {
      for (const p of run ?? []) {
        const from = Math.max(range.start, p.offset);
        const to = Math.min(range.end, p.offset + p.size - 1);
        if (from > to) continue;
        const got = await s3.send(
          new GetObjectCommand({ Bucket: bucket, Key: p.key, Range: `bytes=${from - p.offset}-${to - p.offset}` }),
        );
        yield* got.Body as Readable;
      }
    }
    return Readable.from(bytes(), { objectMode: false });
  }

  private async deleteKeys(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += DELETES_AT_ONCE) {
      await Promise.all(
        keys
          .slice(i, i + DELETES_AT_ONCE)
          .map((Key) => this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key }))),
      );
    }
  }

  async remove(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      const keys: string[] = [];
      for await (const o of this.objects(this.folder(id))) keys.push(o.key);
      await this.deleteKeys(keys);
    }
  }

  async saveTo(id: string, size: number, file: string): Promise<void> {
    await pipeline(await this.read(id, { start: 0, end: size - 1 }), createWriteStream(file, { mode: 0o600 }));
  }

  async loadFrom(id: string, file: string): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.key(id, 0),
        Body: createReadStream(file),
        ContentLength: statSync(file).size,
      }),
    );
  }

  async clear(): Promise<void> {
    // Only what is a piece of a blob: the bucket (or the prefix) may hold other things.
    const piece = /^[A-Za-z0-9_-]{22}\/\d{16}$/;
    const keys: string[] = [];
    for await (const o of this.objects(this.prefix)) if (piece.test(o.key.slice(this.prefix.length))) keys.push(o.key);
    await this.deleteKeys(keys);
  }
}

/**
 * The default blob store: one file per blob in ATTACHMENT_DIR (mode 0700), named by its id.
 * An upload is the file as far as it got; a PATCH writes at its end, and what arrived before
 * a cut connection stays. With several processes, every one must see the same directory.
 */
import { copyFileSync, createWriteStream, linkSync, mkdirSync } from 'node:fs';
import { open, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { attachmentIdSchema } from '@app/protocol';
import { BlobMissingError, type BlobStore } from './blob-store.ts';

/** A complete blob never changes: a hard link where both are on one file system, else a copy. */
function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

export class FileBlobStore implements BlobStore {
  readonly where: string;

  constructor(directory: string) {
    // Only the server's user reads it.
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    this.where = directory;
  }

  private file(id: string): string {
    // Ids are the server's own (base64url): never a path of the client's making.
    return path.join(this.where, attachmentIdSchema.parse(id));
  }

  async create(id: string): Promise<void> {
    await writeFile(this.file(id), new Uint8Array(0), { flag: 'wx', mode: 0o600 });
  }

  async offset(id: string): Promise<number | null> {
    return stat(this.file(id)).then(
      (s) => s.size,
      () => null,
    );
  }

  async append(id: string, offset: number, body: Readable, length: number): Promise<number> {
    const out = createWriteStream(this.file(id), { flags: 'r+', start: offset });
    await pipeline(body, out);
    // What the body carried (Node's parser holds a request to its Content-Length).
    if (out.bytesWritten !== length) throw new Error(`The body carried ${out.bytesWritten} of ${length} bytes`);
    return offset + length;
  }

  async read(id: string, range: { start: number; end: number }): Promise<Readable> {
    // Opened first: a blob missing on disk fails here, before any byte is answered.
    const handle = await open(this.file(id), 'r').catch((e: NodeJS.ErrnoException) => {
      throw e.code === 'ENOENT' ? new BlobMissingError(id) : e;
    });
    try {
      return handle.createReadStream({ ...range, autoClose: true });
    } catch (e) {
      await handle.close();
      throw e;
    }
  }

  async remove(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      await rm(this.file(id), { force: true });
      // The note @tus/file-store kept beside uploads made before Parley spoke tus itself.
      await rm(`${this.file(id)}.json`, { force: true });
    }
  }

  async saveTo(id: string, _size: number, file: string): Promise<void> {
    linkOrCopy(this.file(id), file);
  }

  async loadFrom(id: string, file: string): Promise<void> {
    linkOrCopy(file, this.file(id));
  }

  async clear(): Promise<void> {
    await rm(this.where, { recursive: true, force: true });
    mkdirSync(this.where, { recursive: true, mode: 0o700 });
  }
}

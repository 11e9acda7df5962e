/**
 * Where the attachments' blobs are kept: the tus datastore uploads are written to, and
 * byte ranges of a complete blob read back for download. Blobs are sealed in the browser
 * (e2ee attachment.ts): what is kept here cannot be opened by the server.
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import { open, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { attachmentIdSchema } from '@app/protocol';
import { FileStore } from '@tus/file-store';
import type { DataStore } from '@tus/server';

export interface BlobStore {
  /** Where tus writes uploads. */
  readonly datastore: DataStore;
  /** Bytes `start` to `end` (inclusive) of a complete blob. */
  read(id: string, range: { start: number; end: number }): Promise<Readable>;
  /** Removes blobs (one already gone is skipped). */
  remove(ids: readonly string[]): Promise<void>;
  /** How many bytes of an upload are stored (where a PATCH goes on from); null when there is none. */
  offset(id: string): Promise<number | null>;
  /**
   * Streams `body` onto the upload at `offset` (its current end), at most `max` bytes; the
   * new offset. What arrived before a failure (a cut connection) stays: the upload resumes
   * from there. More than `max` bytes: rejects with TooLongError, after writing `max`.
   */
  append(id: string, offset: number, body: Readable, max: number): Promise<number>;
}

/** A PATCH carried more bytes than the upload has left. */
export class TooLongError extends Error {}

/** The default: files in ATTACHMENT_DIR (each blob, and tus's note of it beside it as `<id>.json`). */
export class FileBlobStore implements BlobStore {
  readonly datastore: FileStore;
  private readonly directory: string;

  constructor(directory: string) {
    // Only the server's user reads it (tus would make it world-readable).
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    this.directory = directory;
    this.datastore = new FileStore({ directory });
  }

  private file(id: string): string {
    // Ids are the server's own (base64url): never a path of the client's making.
    return path.join(this.directory, attachmentIdSchema.parse(id));
  }

  async read(id: string, range: { start: number; end: number }): Promise<Readable> {
    // Opened first: a blob missing on disk fails here, before any byte is answered.
    const handle = await open(this.file(id), 'r');
    try {
      return handle.createReadStream({ ...range, autoClose: true });
    } catch (e) {
      await handle.close();
      throw e;
    }
  }

  async offset(id: string): Promise<number | null> {
    return stat(this.file(id)).then(
      (s) => s.size,
      () => null,
    );
  }

  async append(id: string, offset: number, body: Readable, max: number): Promise<number> {
    let written = 0;
    let tooLong = false;
    const limit = new Transform({
      transform(chunk: Buffer, _enc, done) {
        const room = max - written;
        if (chunk.length > room) {
          tooLong = true;
          written += room;
          done(room > 0 ? null : new TooLongError(), room > 0 ? chunk.subarray(0, room) : undefined);
          return;
        }
        written += chunk.length;
        done(null, chunk);
      },
    });
    try {
      await pipeline(body, limit, createWriteStream(this.file(id), { flags: 'r+', start: offset }));
    } catch (e) {
      if (!tooLong) throw e;
    }
    if (tooLong) throw new TooLongError();
    return offset + written;
  }

  async remove(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      await rm(this.file(id), { force: true });
      await rm(`${this.file(id)}.json`, { force: true });
    }
  }
}

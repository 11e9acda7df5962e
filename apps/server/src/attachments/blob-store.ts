/**
 * Where the attachments' blobs are kept: the tus datastore uploads are written to, and
 * byte ranges of a complete blob read back for download. Blobs are sealed in the browser
 * (e2ee attachment.ts): what is kept here cannot be opened by the server.
 */
import { mkdirSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
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
}

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
    return handle.createReadStream({ ...range, autoClose: true });
  }

  async remove(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      await rm(this.file(id), { force: true });
      await rm(`${this.file(id)}.json`, { force: true });
    }
  }
}

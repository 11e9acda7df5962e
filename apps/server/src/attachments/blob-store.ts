/**
 * Where the attachments' blobs are kept (docs/attachments.md "Storage"): uploads are written
 * to them a PATCH at a time (tus-uploads.ts), and byte ranges of a complete blob are read
 * back for download. Blobs are sealed in the browser (e2ee attachment.ts): what is kept here
 * cannot be opened by the server. Two kinds: files in ATTACHMENT_DIR (file-blob-store.ts)
 * and S3-compatible object storage (s3-blob-store.ts); open-blob-store.ts picks one.
 */
import type { Readable } from 'node:stream';

export interface BlobStore {
  /** Where the blobs are, for the operator (a directory, or s3://bucket/prefix). */
  readonly where: string;
  /** A new, empty upload. */
  create(id: string): Promise<void>;
  /** How many bytes of an upload are stored (where the next PATCH goes on from); null when there is none. */
  offset(id: string): Promise<number | null>;
  /**
   * Stores `length` bytes of `body` at `offset` (the upload's current end); the new offset.
   * A body cut short rejects. What arrived of it may stay (a file) or not (an object): the
   * client asks the offset again and resumes from there, either way.
   */
  append(id: string, offset: number, body: Readable, length: number): Promise<number>;
  /** Bytes `start` to `end` (inclusive) of a complete blob; BlobMissingError when it is not there. */
  read(id: string, range: { start: number; end: number }): Promise<Readable>;
  /** Removes blobs (one already gone is skipped). */
  remove(ids: readonly string[]): Promise<void>;
  /** Backups: writes a complete blob of `size` bytes into `file`. */
  saveTo(id: string, size: number, file: string): Promise<void>;
  /** Restores, into a store cleared first: `file` becomes the complete blob `id`. */
  loadFrom(id: string, file: string): Promise<void>;
  /** Restores: every blob goes (the restored database names those of the backup only). */
  clear(): Promise<void>;
}

/** A blob that is not in the store (lost, or not restored): answered as deleted. */
export class BlobMissingError extends Error {
  constructor(id: string) {
    super(`No blob ${id}`);
  }
}

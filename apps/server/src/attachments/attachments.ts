/**
 * Attachments as the rest of the server sees them: the rows (storage/attachments) and the
 * blobs (blob-store.ts) kept together. A row goes first and its blob after, so a blob is
 * never reachable without its row; a blob left over by a crash is only disk space.
 */
import { randomBytes } from 'node:crypto';
import { sealedAttachmentSize } from '@app/e2ee/attachment';
import type { AttachmentStore } from '../storage/attachments/attachment-store.ts';
import type { BlobStore } from './blob-store.ts';

/** Every refusal of a blob one may not see, or that is not there: the same answer. */
export const ATTACHMENT_NOT_FOUND = 'Attachment not found';

export interface AttachmentLimits {
  /** The largest file (bytes before sealing). */
  maxBytes: number;
  /** Each user's bytes on the server (sealed). */
  quotaBytes: number;
}

export class Attachments {
  readonly store: AttachmentStore;
  readonly blobs: BlobStore;
  readonly limits: AttachmentLimits;

  constructor(store: AttachmentStore, blobs: BlobStore, limits: AttachmentLimits) {
    this.store = store;
    this.blobs = blobs;
    this.limits = limits;
  }

  /** The largest upload: the largest file, sealed. */
  get maxUploadBytes(): number {
    return sealedAttachmentSize(this.limits.maxBytes);
  }

  /**
   * A new upload of `size` sealed bytes by `ownerId`, taken from their quota; its id (128
   * random bits, the server's own), or null when the quota has no room.
   */
  async createUpload(ownerId: string, size: number): Promise<string | null> {
    const id = randomBytes(16).toString('base64url');
    if (!(await this.store.create(ownerId, id, size, this.limits.quotaBytes, Date.now()))) return null;
    try {
      await this.blobs.create(id);
    } catch (e) {
      await this.store.removeUnsent(ownerId, id);
      throw e;
    }
    return id;
  }

  /** The uploads a message to `peerId` carries, bound to it (storage: AttachmentStore.bind). */
  bind(ownerId: string, peerId: string, msgId: string, ids: readonly string[]): Promise<void> {
    return this.store.bind(ownerId, peerId, msgId, ids);
  }

  /** A message deleted by its sender: its blobs go. */
  async removeForMessage(chatId: string, msgId: string): Promise<void> {
    await this.blobs.remove(await this.store.removeForMessage(chatId, msgId));
  }

  /** A cancelled upload (one's own, not in a message). Whether there was one. */
  async removeUnsent(ownerId: string, id: string): Promise<boolean> {
    const ids = await this.store.removeUnsent(ownerId, id);
    await this.blobs.remove(ids);
    return ids.length > 0;
  }

  /** A deleted account: every blob it uploaded goes. */
  async removeOwnedBy(ownerId: string): Promise<void> {
    await this.blobs.remove(await this.store.removeOwnedBy(ownerId));
  }

  /** Left-overs a day old (never sent, message gone, uploader gone): removed. How many. */
  async collect(now: number): Promise<number> {
    const ids = await this.store.collect(now);
    await this.blobs.remove(ids);
    return ids.length;
  }
}

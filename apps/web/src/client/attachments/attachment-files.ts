/**
 * Attachments opened in this tab: downloaded, opened with the key their message carries
 * and checked against its digest, as they stream in (e2ee attachment.ts); kept as Blobs
 * for the tab's life (the most recent ones, within a budget) so a bubble redrawn or the
 * lightbox does not fetch again. One's own upload is kept from the file itself.
 */
import type { AttachmentRef } from '@app/e2ee';
import { fromBase64Url } from '@app/e2ee/bytes';
import { API } from '@app/protocol';
import type { AttachmentHttp } from './attachment-http';

/** Why an attachment cannot be shown. */
export class AttachmentError extends Error {
  /** 'unverified': changed, cut or not what the message says; 'gone': not on the server (deleted); 'failed': anything else. */
  readonly kind: 'unverified' | 'gone' | 'failed';
  constructor(kind: AttachmentError['kind'], message: string) {
    super(message);
    this.kind = kind;
  }
}

export const UNVERIFIED_FILE = "This file couldn't be verified";
export const GONE_FILE = 'This file is no longer available';

/** What the tab keeps of opened attachments (bytes): past it, the least recently used go. */
const BUDGET = 256 * 1024 * 1024;

export class AttachmentFiles {
  private readonly http: AttachmentHttp;
  private readonly opened = new Map<string, Promise<Blob>>();
  private readonly sizes = new Map<string, number>();
  private total = 0;

  constructor(http: AttachmentHttp) {
    this.http = http;
  }

  /** One's own file, as it was before sealing (its blob `id`, sealed to `digest`): shown without a download. */
  remember(id: string, digest: string, blob: Blob): void {
    this.keep(`${id}.${digest}`, Promise.resolve(blob), blob.size);
  }

  /**
   * The attachment as a Blob of its type; rejects with an AttachmentError. Kept by blob and
   * digest: another message naming the same blob with another digest (or key) is checked anew.
   */
  open(ref: AttachmentRef): Promise<Blob> {
    const key = `${ref.id}.${ref.digest}`;
    const held = this.opened.get(key);
    if (held) {
      // Most recently used: to the end.
      this.opened.delete(key);
      this.opened.set(key, held);
      return held;
    }
    const opening = this.fetchAndOpen(ref);
    this.keep(key, opening, ref.size);
    opening.catch(() => this.drop(key));
    return opening;
  }

  private keep(id: string, blob: Promise<Blob>, size: number): void {
    this.drop(id);
    this.opened.set(id, blob);
    this.sizes.set(id, size);
    this.total += size;
    for (const old of this.opened.keys()) {
      if (this.total <= BUDGET || old === id) break;
      this.drop(old);
    }
  }

  private drop(id: string): void {
    if (!this.opened.delete(id)) return;
    this.total -= this.sizes.get(id) ?? 0;
    this.sizes.delete(id);
  }

  private async fetchAndOpen(ref: AttachmentRef): Promise<Blob> {
    const { digester, openAttachment } = await import('@app/e2ee/attachment');
    let res: Response;
    try {
      res = await fetch(`${this.http.base}${API.attachments}/${ref.id}`, { headers: this.http.headers });
    } catch {
      throw new AttachmentError('failed', 'Could not download the file. Check your connection.');
    }
    if (res.status === 404) throw new AttachmentError('gone', GONE_FILE);
    if (!res.ok || !res.body) throw new AttachmentError('failed', 'Could not download the file.');
    const hash = digester();
    try {
      const plain = res.body.pipeThrough(hash.stream).pipeThrough(openAttachment(fromBase64Url(ref.key)));
      const blob = await new Response(plain).blob();
      if ((await hash.digest) !== ref.digest || blob.size !== ref.size) throw new Error('digest');
      return new Blob([blob], { type: ref.type || 'application/octet-stream' });
    } catch {
      throw new AttachmentError('unverified', UNVERIFIED_FILE);
    }
  }
}

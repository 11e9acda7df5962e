/**
 * A file sealed for upload (e2ee attachment.ts): under a fresh key, in segments, as it is
 * read, into a Blob of ciphertext (the browser may keep a large one on disk, not in the
 * page's memory), with the digest of what was sealed. Both go in the outbox: the Blob is
 * safe at rest, the key travels sealed in the message.
 */
import { toBase64Url } from '@app/e2ee/bytes';

export interface SealedFile {
  /** The sealed bytes (what is uploaded). */
  blob: Blob;
  /** The key (base64url): only in the sealed message. */
  key: string;
  /** SHA-256 of `blob` (base64url). */
  digest: string;
}

export async function sealFile(file: Blob): Promise<SealedFile> {
  const { digester, newAttachmentKey, sealAttachment } = await import('@app/e2ee/attachment');
  const key = newAttachmentKey();
  const hash = digester();
  const sealed = file.stream().pipeThrough(sealAttachment(key)).pipeThrough(hash.stream);
  const blob = await new Response(sealed).blob();
  return { blob, key: toBase64Url(key), digest: await hash.digest };
}

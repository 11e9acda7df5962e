/**
 * The blob store the configuration names: S3_BUCKET's objects, or ATTACHMENT_DIR's files.
 * The S3 client is loaded only where it is used.
 */
import type { Config } from '../config.ts';
import type { BlobStore } from './blob-store.ts';
import { FileBlobStore } from './file-blob-store.ts';

export async function openBlobStore(config: Pick<Config, 's3' | 'attachmentDir'>): Promise<BlobStore> {
  if (!config.s3) return new FileBlobStore(config.attachmentDir);
  const { S3BlobStore } = await import('./s3-blob-store.ts');
  return new S3BlobStore(config.s3);
}

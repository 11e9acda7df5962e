/**
 * A sealed blob uploaded with tus (tus-js-client, loaded with the first upload): in chunks,
 * retried over short network failures, resumed from `url` (where an earlier page got to, as
 * the outbox kept it) or begun anew when the server no longer has it. Resolves to the
 * server's id of the upload.
 */
import { API } from '@app/protocol';
import type { AttachmentHttp } from './attachment-http';

/** Bytes a PATCH carries: few requests for a large file, little to send again after a cut. */
const CHUNK = 8 * 1024 * 1024;

/** Why an upload failed, as the outbox sorts failures (retry-policy.ts): a server refusal's code, or 'offline'. */
export class UploadError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

export interface UploadOptions {
  http: AttachmentHttp;
  /** Where an earlier attempt's upload is, a path (resumed from the server's offset). */
  url?: string;
  /** The upload's URL, once the server made it: kept to resume after a reload. */
  onUrl(url: string): void;
  onProgress(sent: number, total: number): void;
  signal?: AbortSignal;
}

/**
 * Reads the sealed Blob a chunk at a time for tus-js-client: the slice itself where the
 * browser's XHR sends Blobs, its bytes in Node (the tests), whose build reads only Buffers
 * and streams.
 */
const blobReader = {
  async openFile(input: Blob) {
    const nativeBlobs = typeof XMLHttpRequest !== 'undefined';
    return {
      size: input.size,
      async slice(start: number, end: number) {
        const part = input.slice(start, end);
        // tus-js-client reads a chunk's length from `size`, as Blobs have it.
        const value = nativeBlobs ? part : Object.assign(new Uint8Array(await part.arrayBuffer()), { size: part.size });
        return { value, done: end >= input.size };
      },
      close() {},
    };
  },
};

/** The upload's id: the last part of its URL. */
export function uploadIdOf(url: string): string {
  return url.split('/').at(-1) ?? '';
}

function refusal(status: number, body: string): UploadError {
  let message = 'The file could not be uploaded.';
  try {
    message = (JSON.parse(body) as { message?: string }).message ?? message;
  } catch {
    // not our JSON
  }
  const code = status === 413 ? 'too_large' : status === 401 ? 'forbidden' : status >= 500 ? 'internal' : 'not_found';
  return new UploadError(code, message);
}

export async function uploadSealed(blob: Blob, o: UploadOptions): Promise<string> {
  const { Upload } = await import('tus-js-client');
  // tus-js-client resolves the server's Location against an absolute endpoint.
  const base = o.http.base || globalThis.location.origin;
  return new Promise<string>((resolve, reject) => {
    const upload = new Upload(blob, {
      endpoint: base + API.attachmentUploads,
      ...(o.url ? { uploadUrl: base + o.url } : {}),
      headers: o.http.headers,
      fileReader: blobReader,
      chunkSize: CHUNK,
      retryDelays: [0, 1000, 3000, 5000],
      // The outbox keeps the URL (with the message); nothing in localStorage.
      storeFingerprintForResuming: false,
      onUploadUrlAvailable: () => {
        if (upload.url) o.onUrl(new URL(upload.url, base).pathname);
      },
      onProgress: (sent, total) => o.onProgress(sent, total),
      onSuccess: () => resolve(uploadIdOf(upload.url ?? '')),
      onError: (e) => {
        const res = (e as { originalResponse?: { getStatus(): number; getBody(): string } | null }).originalResponse;
        reject(res ? refusal(res.getStatus(), res.getBody()) : new UploadError('offline', 'The upload was cut off.'));
      },
    });
    o.signal?.addEventListener('abort', () => {
      void upload.abort(false);
      reject(new UploadError('offline', 'The upload was stopped.'));
    });
    upload.start();
  });
}

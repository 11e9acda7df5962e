/**
 * A raw tus client for tests (no tus-js-client: each request as written, so a test can also
 * send what no well-behaved client would): create, resume, and download attachments.
 */
import { API } from '@app/protocol';

export interface TusAnswer {
  status: number;
  headers: Headers;
  body: string;
}

async function call(base: string, cookie: string | null, method: string, path: string, init: RequestInit = {}) {
  const res = await fetch(base + path, {
    method,
    ...init,
    headers: {
      'tus-resumable': '1.0.0',
      ...(cookie ? { cookie: `sid=${cookie}` } : {}),
      ...(init.headers as Record<string, string> | undefined),
    },
  });
  return { status: res.status, headers: res.headers, body: await res.text() };
}

/** POST: a new upload of `length` sealed bytes; `headers` over the usual ones. Its path in `location`. */
export async function tusCreate(
  base: string,
  cookie: string | null,
  length: number,
  headers: Record<string, string> = {},
): Promise<TusAnswer & { location: string }> {
  const r = await call(base, cookie, 'POST', API.attachmentUploads, {
    headers: { 'upload-length': String(length), ...headers },
  });
  return { ...r, location: r.headers.get('location') ?? '' };
}

/** PATCH: `bytes` at `offset` of the upload at `location`. */
export function tusPatch(base: string, cookie: string | null, location: string, offset: number, bytes: Uint8Array) {
  return call(base, cookie, 'PATCH', location, {
    headers: { 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' },
    body: bytes.slice(),
  });
}

/** HEAD: how far the upload at `location` is (its Upload-Offset). */
export function tusHead(base: string, cookie: string | null, location: string) {
  return call(base, cookie, 'HEAD', location);
}

/** A whole upload in chunks of `chunk` bytes; its id. */
export async function uploadBlob(base: string, cookie: string, bytes: Uint8Array, chunk = 64 * 1024): Promise<string> {
  const created = await tusCreate(base, cookie, bytes.length);
  if (created.status !== 201) throw new Error(`upload refused: ${created.status} ${created.body}`);
  for (let at = 0; at < bytes.length; at += chunk) {
    const r = await tusPatch(base, cookie, created.location, at, bytes.subarray(at, at + chunk));
    if (r.status !== 204) throw new Error(`upload failed: ${r.status} ${r.body}`);
  }
  return created.location.split('/').at(-1) as string;
}

/** GET: a blob (or its `range`), the bytes and the answer's status and headers. */
export async function downloadBlob(base: string, cookie: string | null, id: string, range?: string) {
  const res = await fetch(`${base}${API.attachments}/${id}`, {
    headers: { ...(cookie ? { cookie: `sid=${cookie}` } : {}), ...(range ? { range } : {}) },
  });
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

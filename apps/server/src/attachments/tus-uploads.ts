/**
 * Uploads speak tus 1.0.0, core protocol and creation (https://tus.io/protocols/resumable-upload),
 * at API.attachmentUploads, for a signed-in user (docs/attachments.md "Upload"):
 * - POST creates: `Upload-Length` (the sealed size) is required, checked against the largest
 *   file sealed and taken from the user's quota at once. No `Upload-Metadata`, deferred
 *   length, concatenation or body: the server learns nothing of the file but its size.
 * - HEAD says where the upload is (`Upload-Offset`), PATCH goes on from there, DELETE drops
 *   an upload not yet in a message: the uploader's only; anyone else gets 404.
 * - PATCH takes `Tus-Resumable: 1.0.0` (else 412), `Content-Type: application/offset+octet-stream`
 *   (else 415), `Upload-Offset` where the upload is (else 409), a `Content-Length` (else 411)
 *   of no more than the upload has left (else 413) and at least MIN_PATCH_BYTES unless it
 *   ends the upload (else 400: an S3 store keeps a piece per PATCH). One PATCH of an upload at
 *   a time in a process (another gets 409). 204 with the new offset; the last byte completes it.
 * The bytes go with Node streams straight to the blob store: @tus/server turned every body
 * into a web stream and back, which made uploads 4–5× slower than a plain copy, and its S3
 * store needs multipart listing that not every S3-compatible server has.
 */

import { ATTACHMENT_SEGMENT, ATTACHMENT_TAG } from '@app/e2ee/attachment';
import { API, attachmentIdSchema } from '@app/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type AppContext, authOf, requireAuth } from '../context.ts';
import { HttpError } from '../http/errors.ts';
import type { AttachmentRow } from '../storage/attachments/attachment-store.ts';
import { ATTACHMENT_NOT_FOUND, type Attachments } from './attachments.ts';
import { counted } from './body-pressure.ts';

const TUS_VERSION = '1.0.0';
/** The smallest PATCH but the last: 64 KiB. */
export const MIN_PATCH_BYTES = ATTACHMENT_SEGMENT;

function requireVersion(req: FastifyRequest, reply: FastifyReply): void {
  if (req.headers['tus-resumable'] !== TUS_VERSION) {
    reply.header('tus-version', TUS_VERSION);
    throw new HttpError(412, 'invalid_input', 'Tus-Resumable 1.0.0 is required');
  }
}

/** A header that must be a whole number of bytes; null when absent. */
function bytesHeader(req: FastifyRequest, name: string): number | null {
  const raw = req.headers[name];
  if (raw === undefined) return null;
  const n = Number(raw);
  if (typeof raw !== 'string' || raw === '' || !Number.isSafeInteger(n) || n < 0) {
    throw new HttpError(400, 'invalid_input', `${name} must be a number of bytes`);
  }
  return n;
}

async function create(attachments: Attachments, req: FastifyRequest, reply: FastifyReply) {
  requireVersion(req, reply);
  const size = bytesHeader(req, 'upload-length');
  if (size === null) throw new HttpError(400, 'invalid_input', 'Upload-Length is required');
  if (req.headers['upload-metadata'] !== undefined) {
    // A name or type in the clear would tell the server what the sealed blob is.
    throw new HttpError(400, 'invalid_input', 'Upload-Metadata is not accepted');
  }
  if (req.headers['upload-concat'] !== undefined || (bytesHeader(req, 'content-length') ?? 0) > 0) {
    throw new HttpError(400, 'invalid_input', 'Create the upload, then PATCH its bytes');
  }
  // Even an empty file seals to one tag's worth of bytes.
  if (size < ATTACHMENT_TAG) throw new HttpError(400, 'invalid_input', 'An upload is at least 16 bytes');
  if (size > attachments.maxUploadBytes) throw new HttpError(413, 'payload_too_large', 'This file is too large');
  const id = await attachments.createUpload(authOf(req).user.id, size);
  if (!id) {
    throw new HttpError(
      413,
      'payload_too_large',
      'Your attachments are over your storage quota. Delete some to send more.',
    );
  }
  return reply.code(201).header('location', `${API.attachmentUploads}/${id}`).send();
}

/** The caller's own upload named by the URL, or 404. */
async function ownUpload(attachments: Attachments, req: FastifyRequest<{ Params: { id: string } }>) {
  const id = attachmentIdSchema.safeParse(req.params.id);
  const row = id.success ? await attachments.store.get(id.data) : null;
  if (!row || row.ownerId !== authOf(req).user.id) throw new HttpError(404, 'not_found', ATTACHMENT_NOT_FOUND);
  return row;
}

async function head(attachments: Attachments, req: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
  requireVersion(req, reply);
  const row = await ownUpload(attachments, req);
  const at = await attachments.blobs.offset(row.id);
  if (at === null) throw new HttpError(404, 'not_found', ATTACHMENT_NOT_FOUND);
  return reply
    .header('upload-offset', String(at))
    .header('upload-length', String(row.size))
    .header('cache-control', 'no-store')
    .send();
}

/** The PATCH's checks before a byte is read; how many bytes it carries. */
function patchLength(req: FastifyRequest, row: AttachmentRow, offset: number, at: number): number {
  if (offset !== at) throw new HttpError(409, 'conflict', `The upload is at ${at}, not ${offset}`);
  const length = bytesHeader(req, 'content-length');
  if (length === null) throw new HttpError(411, 'invalid_input', 'Content-Length is required');
  if (length > row.size - offset) throw new HttpError(413, 'payload_too_large', 'More bytes than the upload declared');
  if (length < MIN_PATCH_BYTES && offset + length !== row.size) {
    throw new HttpError(400, 'invalid_input', `A PATCH carries at least ${MIN_PATCH_BYTES} bytes, or the rest`);
  }
  return length;
}

function patchHandler(attachments: Attachments) {
  /** Uploads a PATCH is writing to now (this process: a client sends one at a time). */
  const busy = new Set<string>();
  return async (req: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
    requireVersion(req, reply);
    if (req.headers['content-type'] !== 'application/offset+octet-stream') {
      throw new HttpError(415, 'unsupported_media_type', 'Uploads are application/offset+octet-stream');
    }
    const offset = bytesHeader(req, 'upload-offset');
    if (offset === null) throw new HttpError(400, 'invalid_input', 'Upload-Offset is required');
    const row = await ownUpload(attachments, req);
    if (busy.has(row.id)) throw new HttpError(409, 'conflict', 'This file is being uploaded already');
    busy.add(row.id);
    try {
      const at = await attachments.blobs.offset(row.id);
      if (at === null) throw new HttpError(404, 'not_found', ATTACHMENT_NOT_FOUND);
      const length = patchLength(req, row, offset, at);
      const next = await attachments.blobs.append(row.id, offset, counted(req.raw), length).then(
        (at) => ({ at }),
        (failure: unknown) => ({ failure }),
      );
      // Dropped meanwhile (cancelled, swept, its account deleted): what this PATCH stored goes too.
      if (!(await attachments.store.get(row.id))) {
        await attachments.blobs.remove([row.id]);
        throw new HttpError(404, 'not_found', ATTACHMENT_NOT_FOUND);
      }
      if ('failure' in next) {
        // The client went away mid-PATCH (a reload, a lost network): usual, and it resumes.
        // Anything else (a full disk, the bucket refusing) is the server's, and logged.
        if (!req.raw.complete) throw new HttpError(400, 'invalid_input', 'Upload cut off');
        throw next.failure;
      }
      // Every declared byte is there: complete.
      if (next.at === row.size) await attachments.store.markComplete(row.id);
      return reply.code(204).header('upload-offset', String(next.at)).send();
    } finally {
      busy.delete(row.id);
    }
  };
}

export function registerTusRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { attachments } = ctx;
  const auth = requireAuth(ctx);
  const upload = `${API.attachmentUploads}/:id`;
  // The body is streamed to the blob store, never parsed.
  app.addContentTypeParser('application/offset+octet-stream', (_req, _payload, done) => done(null));
  // tus clients look for its version on every answer, refusals too.
  const opts = {
    preHandler: auth,
    onSend: async (_req: FastifyRequest, reply: FastifyReply) => {
      reply.header('tus-resumable', TUS_VERSION);
    },
  };
  app.post(API.attachmentUploads, opts, (req, reply) => create(attachments, req, reply));
  app.head<{ Params: { id: string } }>(upload, opts, (req, reply) => head(attachments, req, reply));
  app.patch<{ Params: { id: string } }>(upload, opts, patchHandler(attachments));
  app.delete<{ Params: { id: string } }>(upload, opts, async (req, reply) => {
    const id = attachmentIdSchema.safeParse(req.params.id);
    if (!id.success || !(await attachments.removeUnsent(authOf(req).user.id, id.data))) {
      throw new HttpError(404, 'not_found', ATTACHMENT_NOT_FOUND);
    }
    return reply.code(204).send();
  });
}

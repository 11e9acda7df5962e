/**
 * The tus PATCH (tus 1.0.0 core: bytes at the upload's current offset), served here with
 * Node streams straight onto the blob: @tus/server's own handler turns every body into a
 * web stream and back (srvx), which made uploads 4–5× slower than a plain file copy in
 * bench:attachments (garbage collection, and the server idle between chunks). Creating and
 * resuming (POST, HEAD) stay with @tus/server. The rules, as the protocol has them:
 * - `Tus-Resumable: 1.0.0` (else 412) and `Content-Type: application/offset+octet-stream` (else 415);
 * - `Upload-Offset` must be where the upload is (else 409, and the client asks HEAD again);
 * - at most the bytes the upload has left (else 413, after keeping what fits: an upload
 *   filled so is complete);
 * - one PATCH of an upload at a time (another gets 409, and the client tries again);
 * - 204 with the new `Upload-Offset`; the last byte marks the upload complete.
 * What arrived before a cut connection stays, and the upload resumes from there.
 */

import type { Readable } from 'node:stream';
import { attachmentIdSchema } from '@app/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authOf } from '../context.ts';
import { HttpError } from '../http/errors.ts';
import type { AttachmentRow } from '../storage/attachments/attachment-store.ts';
import type { Attachments } from './attachments.ts';
import { TooLongError } from './blob-store.ts';

const TUS_VERSION = '1.0.0';

/** The tus headers a PATCH must have; its Upload-Offset. */
function checkHeaders(req: FastifyRequest, reply: FastifyReply): number {
  if (req.headers['tus-resumable'] !== TUS_VERSION) {
    reply.header('tus-version', TUS_VERSION);
    throw new HttpError(412, 'invalid_input', 'Tus-Resumable 1.0.0 is required');
  }
  if (req.headers['content-type'] !== 'application/offset+octet-stream') {
    throw new HttpError(415, 'unsupported_media_type', 'Uploads are application/offset+octet-stream');
  }
  const offset = Number(req.headers['upload-offset']);
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw new HttpError(400, 'invalid_input', 'Upload-Offset is required');
  return offset;
}

/** Appends the body; the new offset. More than the upload has left: the bytes that fit, and a 413 after. */
async function write(attachments: Attachments, row: AttachmentRow, offset: number, body: Readable): Promise<number> {
  let tooLong = false;
  let next = await attachments.blobs.append(row.id, offset, body, row.size - offset).catch((e: unknown) => {
    if (!(e instanceof TooLongError)) throw e;
    tooLong = true;
    return -1;
  });
  // After too many bytes, what fits may not all be written: the disk says.
  if (tooLong) next = (await attachments.blobs.offset(row.id)) ?? offset;
  // Every declared byte is there: complete.
  if (next === row.size && !row.complete) await attachments.store.markComplete(row.id);
  if (tooLong) throw new HttpError(413, 'payload_too_large', 'More bytes than the upload declared');
  return next;
}

export function tusPatchHandler(attachments: Attachments, notFound: string) {
  /** Uploads a PATCH is writing to now (this process: a client sends one at a time). */
  const busy = new Set<string>();
  return async (req: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
    reply.header('tus-resumable', TUS_VERSION);
    const offset = checkHeaders(req, reply);
    const id = attachmentIdSchema.safeParse(req.params.id);
    const row = id.success ? await attachments.store.get(id.data) : null;
    if (!row || row.ownerId !== authOf(req).user.id) throw new HttpError(404, 'not_found', notFound);
    if (busy.has(row.id)) throw new HttpError(409, 'conflict', 'This file is being uploaded already');
    busy.add(row.id);
    try {
      const at = await attachments.blobs.offset(row.id);
      if (at === null) throw new HttpError(404, 'not_found', notFound);
      if (offset !== at) throw new HttpError(409, 'conflict', `The upload is at ${at}, not ${offset}`);
      const next = await write(attachments, row, offset, req.raw);
      return reply.code(204).header('upload-offset', String(next)).send();
    } finally {
      busy.delete(row.id);
    }
  };
}

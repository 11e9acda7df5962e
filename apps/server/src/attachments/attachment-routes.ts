/**
 * Attachments over HTTP (protocol attachments.ts), for a signed-in user only:
 *
 * - Uploads speak tus at API.attachmentUploads (tus-uploads.ts).
 * - GET `${API.attachments}/:id` answers a blob to whoever may read it now (AttachmentStore
 *   .readable, checked on every request), as an opaque download: octet-stream, nosniff, a
 *   sandboxing CSP and `attachment`, so nothing of it ever renders on the app's origin.
 *   One byte range may be asked for.
 * Everything else answers 404, the same as a blob that does not exist.
 */
import { API, attachmentIdSchema } from '@app/protocol';
import type { FastifyInstance } from 'fastify';
import { type AppContext, authOf, requireAuth } from '../context.ts';
import { HttpError } from '../http/errors.ts';
import { ATTACHMENT_NOT_FOUND } from './attachments.ts';
import { BlobMissingError } from './blob-store.ts';
import { counted } from './body-pressure.ts';
import { byteRange } from './byte-range.ts';
import { registerTusRoutes } from './tus-uploads.ts';

export function registerAttachmentRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { attachments } = ctx;
  const auth = requireAuth(ctx);
  registerTusRoutes(app, ctx);

  app.get<{ Params: { id: string } }>(`${API.attachments}/:id`, { preHandler: auth }, async (req, reply) => {
    const id = attachmentIdSchema.safeParse(req.params.id);
    const row = id.success ? await attachments.store.readable(id.data, authOf(req).user.id) : null;
    if (!row) throw new HttpError(404, 'not_found', ATTACHMENT_NOT_FOUND);
    reply
      .header('content-type', 'application/octet-stream')
      .header('x-content-type-options', 'nosniff')
      .header('content-disposition', 'attachment')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .header('cross-origin-resource-policy', 'same-origin')
      // Revalidated every time (so the check above runs), never changed once complete.
      .header('cache-control', 'private, no-cache')
      .header('etag', `"${row.id}"`)
      .header('accept-ranges', 'bytes');
    if (req.headers['if-none-match'] === `"${row.id}"`) return reply.code(304).send();
    const range = byteRange(req.headers.range, row.size);
    if (range === 'unsatisfiable') {
      return reply.code(416).header('content-range', `bytes */${row.size}`).send();
    }
    // A row whose blob is missing (lost from the disk, or not restored): gone, as deleted.
    const body = await attachments.blobs.read(row.id, range).catch((e: unknown) => {
      throw e instanceof BlobMissingError ? new HttpError(404, 'not_found', ATTACHMENT_NOT_FOUND) : e;
    });
    if (range.partial) reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${row.size}`);
    return reply.header('content-length', range.end - range.start + 1).send(counted(body));
  });
}

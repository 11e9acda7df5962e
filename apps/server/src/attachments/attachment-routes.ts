/**
 * Attachments over HTTP (protocol attachments.ts), for a signed-in user only:
 *
 * - Uploads speak tus at API.attachmentUploads: POST creates (@tus/server; the sealed
 *   length is required, checked against the largest file sealed and taken from the user's
 *   quota at once; no metadata: the server learns nothing of the file), HEAD (@tus/server)
 *   and PATCH (tus-patch.ts) resume, only by the uploader. DELETE drops an upload not yet
 *   in a message.
 * - GET `${API.attachments}/:id` answers a blob to whoever may read it now (AttachmentStore
 *   .readable, checked on every request), as an opaque download: octet-stream, nosniff, a
 *   sandboxing CSP and `attachment`, so nothing of it ever renders on the app's origin.
 *   One byte range may be asked for.
 * Everything else answers 404, the same as a blob that does not exist.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ATTACHMENT_TAG } from '@app/e2ee/attachment';
import { API, type ApiErrorBody, attachmentIdSchema } from '@app/protocol';
import { Server as TusServer } from '@tus/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type AppContext, authOf, requireAuth } from '../context.ts';
import { HttpError } from '../http/errors.ts';
import type { Attachments } from './attachments.ts';
import { byteRange } from './byte-range.ts';
import { tusPatchHandler } from './tus-patch.ts';

const NOT_FOUND = 'Attachment not found';

/** A refusal tus sends as it is: the status and our usual error body. */
function refusal(status: number, error: ApiErrorBody['error'], message: string) {
  return { status_code: status, body: JSON.stringify({ error, message } satisfies ApiErrorBody) };
}

/** The tus server, its hooks reading the user the route authenticated (by the raw request). */
function tusServer(attachments: Attachments, userOf: (req: IncomingMessage | undefined) => string | undefined) {
  const nodeReq = (req: Request) =>
    (req as Request & { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req;
  return new TusServer({
    path: API.attachmentUploads,
    datastore: attachments.blobs.datastore,
    relativeLocation: true,
    maxSize: attachments.maxUploadBytes,
    disableTerminationForFinishedUploads: true,
    namingFunction: () => randomBytes(16).toString('base64url'),
    onIncomingRequest: async (req, id) => {
      const userId = userOf(nodeReq(req));
      if (!userId) throw refusal(401, 'unauthenticated', 'Please sign in to continue');
      if (req.method === 'POST') return;
      const row = attachmentIdSchema.safeParse(id).success ? await attachments.store.get(id) : null;
      if (!row || row.ownerId !== userId) throw refusal(404, 'not_found', NOT_FOUND);
    },
    onUploadCreate: async (req, upload) => {
      const userId = userOf(nodeReq(req)) as string;
      if (upload.size === undefined) throw refusal(400, 'invalid_input', 'Upload-Length is required');
      // Even an empty file seals to one tag's worth of bytes.
      if (upload.size < ATTACHMENT_TAG) throw refusal(400, 'invalid_input', 'An upload is at least 16 bytes');
      if (upload.metadata && Object.keys(upload.metadata).length > 0) {
        // A name or type in the clear would tell the server what the sealed blob is.
        throw refusal(400, 'invalid_input', 'Upload-Metadata is not accepted');
      }
      const { quotaBytes } = attachments.limits;
      if (!(await attachments.store.create(userId, upload.id, upload.size, quotaBytes, Date.now()))) {
        throw refusal(
          413,
          'payload_too_large',
          'Your attachments are over your storage quota. Delete some to send more.',
        );
      }
      return {};
    },
    onUploadFinish: async (_req, upload) => {
      await attachments.store.markComplete(upload.id);
      return {};
    },
  });
}

export function registerAttachmentRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { attachments } = ctx;
  const auth = requireAuth(ctx);
  const users = new WeakMap<IncomingMessage, string>();
  const tus = tusServer(attachments, (req) => (req ? users.get(req) : undefined));

  // tus reads the body itself, as it streams in.
  app.addContentTypeParser('application/offset+octet-stream', (_req, _payload, done) => done(null));
  const handOver = async (req: FastifyRequest, reply: FastifyReply) => {
    users.set(req.raw, authOf(req).user.id);
    reply.hijack();
    await tus.handle(req.raw, reply.raw);
  };
  app.route({ method: ['POST'], url: API.attachmentUploads, preHandler: auth, handler: handOver });
  app.route({ method: ['HEAD'], url: `${API.attachmentUploads}/:id`, preHandler: auth, handler: handOver });
  app.patch<{ Params: { id: string } }>(
    `${API.attachmentUploads}/:id`,
    { preHandler: auth },
    tusPatchHandler(attachments, NOT_FOUND),
  );

  app.delete<{ Params: { id: string } }>(`${API.attachmentUploads}/:id`, { preHandler: auth }, async (req, reply) => {
    const id = attachmentIdSchema.safeParse(req.params.id);
    if (!id.success || !(await attachments.removeUnsent(authOf(req).user.id, id.data))) {
      throw new HttpError(404, 'not_found', NOT_FOUND);
    }
    // tus clients look for its version on every answer.
    return reply.code(204).header('tus-resumable', '1.0.0').send();
  });

  app.get<{ Params: { id: string } }>(`${API.attachments}/:id`, { preHandler: auth }, async (req, reply) => {
    const id = attachmentIdSchema.safeParse(req.params.id);
    const row = id.success ? await attachments.store.readable(id.data, authOf(req).user.id) : null;
    if (!row) throw new HttpError(404, 'not_found', NOT_FOUND);
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
      if ((e as { code?: string }).code === 'ENOENT') throw new HttpError(404, 'not_found', NOT_FOUND);
      throw e;
    });
    if (range.partial) reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${row.size}`);
    return reply.header('content-length', range.end - range.start + 1).send(body);
  });
}

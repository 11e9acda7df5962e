/**
 * Attachments (photos, files, voice): blobs sealed in the browser (e2ee attachment.ts),
 * uploaded with the tus protocol to API.attachmentUploads, named in the `send` frame of the
 * message that carries them (whose sealed content holds their keys), and downloaded from
 * `${API.attachments}/:id` by the two people of that chat. The server never sees a name,
 * a type or a byte of the file.
 */
import { z } from 'zod';

/** The id the server gives an upload: 128 random bits, base64url. */
export const attachmentIdSchema = z.string().regex(/^[A-Za-z0-9_-]{22}$/, { error: 'Invalid attachment id' });

/** At most this many attachments in one message. */
export const ATTACHMENTS_PER_MESSAGE = 10;

export const messageAttachmentsSchema = z
  .array(attachmentIdSchema)
  .min(1)
  .max(ATTACHMENTS_PER_MESSAGE, { error: `At most ${ATTACHMENTS_PER_MESSAGE} attachments in one message` });

/** A client frame as the protocol reads it, or the error frame that tells the client why not. */
import { type DownFrame, type UpFrame, upFrameSchema } from '@app/protocol';

export function parseUpFrame(text: string, isBinary: boolean): { frame: UpFrame } | { refusal: DownFrame } {
  let raw: unknown;
  try {
    if (isBinary) throw new Error('binary');
    raw = JSON.parse(text);
  } catch {
    return { refusal: { t: 'error', id: null, code: 'invalid_frame', message: 'Frames must be JSON text' } };
  }
  const parsed = upFrameSchema.safeParse(raw);
  if (parsed.success) return { frame: parsed.data };
  // The request's id, when it has one, so the client can match the refusal to it.
  const rawId = (raw as { id?: unknown } | null)?.id;
  const id = typeof rawId === 'string' ? rawId.slice(0, 64) : null;
  const message = parsed.error.issues[0]?.message ?? 'Invalid frame';
  return { refusal: { t: 'error', id, code: 'invalid_frame', message } };
}

/**
 * A file made ready to send (lib/prepare-file.ts in the browser: an image resized and
 * stripped of its metadata, with its thumbnail), and the descriptor its message seals.
 */
import { type AttachmentRef, attachmentName } from '@app/e2ee/attachment-ref';
import type { SealedFile } from './seal-file';

/** The bytes to send, and what the message will say of them (name, type, kind, a photo's size and thumbnail, a voice message's length and waveform). */
export type PreparedFile = { file: Blob } & Pick<AttachmentRef, 'name' | 'type' | 'kind'> &
  Partial<Pick<AttachmentRef, 'width' | 'height' | 'thumb' | 'durationMs' | 'waveform'>>;

/** What the message says of `f`, sealed as `s` (its id once uploaded). */
export function refOf(f: PreparedFile, s: SealedFile): AttachmentRef {
  const ref: AttachmentRef = {
    id: '',
    key: s.key,
    digest: s.digest,
    size: f.file.size,
    type: f.type.slice(0, 100),
    name: attachmentName(f.name),
    kind: f.kind,
  };
  if (f.width !== undefined && f.height !== undefined) {
    ref.width = f.width;
    ref.height = f.height;
  }
  if (f.thumb !== undefined) ref.thumb = f.thumb;
  if (f.durationMs !== undefined) ref.durationMs = f.durationMs;
  if (f.waveform !== undefined) ref.waveform = f.waveform;
  return ref;
}

/**
 * A file opened from a message, made ready to send again (forwarded): its bytes and what the
 * message said of them. It is sealed anew under a fresh key and uploaded again, so the server
 * cannot tell a forwarded file from a new one.
 */
export function preparedFromRef(ref: AttachmentRef, file: Blob): PreparedFile {
  const { name, type, kind, width, height, thumb, durationMs, waveform } = ref;
  const f: PreparedFile = { file, name, type, kind };
  if (width !== undefined && height !== undefined) Object.assign(f, { width, height });
  if (thumb !== undefined) f.thumb = thumb;
  if (durationMs !== undefined) f.durationMs = durationMs;
  if (waveform !== undefined) f.waveform = waveform;
  return f;
}

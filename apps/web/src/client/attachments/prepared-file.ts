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

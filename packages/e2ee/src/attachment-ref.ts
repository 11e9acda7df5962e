/**
 * What a message says of an attachment it carries, sealed inside it (message-content.ts):
 * where the blob is, the key that opens it and the digest it must have, and what the file
 * is (name, type, size; an image's dimensions and a tiny thumbnail; a voice message's length
 * and waveform). Written as compact JSON; every field bounded, so a message with a full
 * caption and the largest descriptor still seals under the ciphertext limit (tested).
 */
import { E2EEAuthError } from './errors.ts';

export type AttachmentKind = 'image' | 'file' | 'voice';

export interface AttachmentRef {
  /** The server's id of the sealed blob. */
  id: string;
  /** Its key (32 bytes, base64url). */
  key: string;
  /** SHA-256 of the sealed blob (base64url). */
  digest: string;
  /** The file's size (bytes, before sealing). */
  size: number;
  /** Its MIME type ('' when unknown). */
  type: string;
  name: string;
  kind: AttachmentKind;
  /** An image's dimensions (px). */
  width?: number;
  height?: number;
  /** A tiny JPEG of an image, base64 (no data: prefix), shown until the image is open. */
  thumb?: string;
  /** A voice message's length (ms). */
  durationMs?: number;
  /** Its loudness, one byte a bar (base64url). */
  waveform?: string;
}

export const ATTACHMENT_NAME_MAX = 200;
export const ATTACHMENT_TYPE_MAX = 100;
/** The longest thumbnail (base64 characters). */
export const THUMB_MAX = 2000;
/** The most waveform bars. */
export const WAVEFORM_MAX = 64;

const B64URL = /^[A-Za-z0-9_-]*$/;
const B64 = /^[A-Za-z0-9+/]*={0,2}$/;

type Wire = {
  i: string;
  k: string;
  d: string;
  s: number;
  t: string;
  n: string;
  c: AttachmentKind;
  w?: number;
  h?: number;
  p?: string;
  u?: number;
  v?: string;
};

export function refToWire(r: AttachmentRef): Wire {
  const w: Wire = { i: r.id, k: r.key, d: r.digest, s: r.size, t: r.type, n: r.name, c: r.kind };
  if (r.width !== undefined) w.w = r.width;
  if (r.height !== undefined) w.h = r.height;
  if (r.thumb !== undefined) w.p = r.thumb;
  if (r.durationMs !== undefined) w.u = r.durationMs;
  if (r.waveform !== undefined) w.v = r.waveform;
  return w;
}

function str(v: unknown, max: number, pattern?: RegExp): string {
  if (typeof v !== 'string' || [...v].length > max || (pattern && !pattern.test(v))) {
    throw new E2EEAuthError('The message');
  }
  return v;
}

function int(v: unknown, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) throw new E2EEAuthError('The message');
  return v;
}

/** A descriptor as sealed; anything malformed is an E2EEAuthError. */
export function refFromWire(v: unknown): AttachmentRef {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new E2EEAuthError('The message');
  const w = v as Record<string, unknown>;
  if (w.c !== 'image' && w.c !== 'file' && w.c !== 'voice') throw new E2EEAuthError('The message');
  const ref: AttachmentRef = {
    id: str(w.i, 64, B64URL),
    key: str(w.k, 43, B64URL),
    digest: str(w.d, 43, B64URL),
    size: int(w.s),
    type: str(w.t, ATTACHMENT_TYPE_MAX),
    name: str(w.n, ATTACHMENT_NAME_MAX),
    kind: w.c,
  };
  if (ref.key.length !== 43 || ref.digest.length !== 43) throw new E2EEAuthError('The message');
  if (w.w !== undefined) ref.width = int(w.w, 100_000);
  if (w.h !== undefined) ref.height = int(w.h, 100_000);
  if (w.p !== undefined) ref.thumb = str(w.p, THUMB_MAX, B64);
  if (w.u !== undefined) ref.durationMs = int(w.u, 24 * 60 * 60 * 1000);
  if (w.v !== undefined) ref.waveform = str(w.v, Math.ceil((WAVEFORM_MAX * 4) / 3), B64URL);
  return ref;
}

/** A file name cut to ATTACHMENT_NAME_MAX code points, keeping its extension where it can. */
export function attachmentName(name: string): string {
  const points = [...name];
  if (points.length <= ATTACHMENT_NAME_MAX) return name;
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 ? [...name.slice(dot)] : [];
  if (ext.length > 0 && ext.length < 16) {
    return `${points.slice(0, ATTACHMENT_NAME_MAX - ext.length - 1).join('')}…${ext.join('')}`;
  }
  return `${points.slice(0, ATTACHMENT_NAME_MAX - 1).join('')}…`;
}

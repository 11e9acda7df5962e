/**
 * A file the user picked, made ready to send (client/attachments/prepared-file.ts):
 * - a photo (JPEG, PNG, WebP, HEIC where the browser decodes it) is drawn again at most
 *   2,048 px on its long side ("standard" quality, as WhatsApp sends), which also leaves its
 *   EXIF behind (camera, time, location): only pixels are drawn. Turned upright first;
 * - each photo gets a tiny JPEG thumbnail (at most THUMB_MAX base64 characters) and its
 *   dimensions, sealed in the message, so the bubble has its shape and a blurred preview
 *   before the photo is downloaded;
 * - anything else (and a photo sent "as a file") goes as it is, with its name and type.
 */
import { THUMB_MAX } from '@app/e2ee/attachment-ref';
import type { PreparedFile } from '@/client/attachments/prepared-file';

/** The long side of a photo sent in standard quality (px). */
export const STANDARD_SIDE = 2048;
/** The long side of a thumbnail (px): a placeholder, blurred when shown. */
const THUMB_SIDE = 32;

const PHOTO_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/heic', 'image/heif', 'image/avif']);

/** Whether `file` is sent as a photo (resized, with a thumbnail). GIFs keep their animation as files. */
export function isPhoto(file: File): boolean {
  return PHOTO_TYPES.has(file.type);
}

function canvasOf(width: number, height: number): HTMLCanvasElement {
  const c = document.createElement('canvas');
  c.width = width;
  c.height = height;
  return c;
}

function fit(width: number, height: number, side: number): { width: number; height: number } {
  const scale = Math.min(1, side / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

function toBlob(canvas: HTMLCanvasElement, type: string, quality: number): Promise<Blob> {
  return new Promise((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('This image could not be read.'))), type, quality),
  );
}

/** The smallest JPEG of `bitmap` that fits THUMB_MAX, as base64. */
function thumbnailOf(bitmap: ImageBitmap): string | undefined {
  for (const [side, quality] of [
    [THUMB_SIDE, 0.6],
    [24, 0.5],
    [16, 0.4],
  ] as const) {
    const size = fit(bitmap.width, bitmap.height, side);
    const c = canvasOf(size.width, size.height);
    c.getContext('2d')?.drawImage(bitmap, 0, 0, size.width, size.height);
    const b64 = c.toDataURL('image/jpeg', quality).split(',')[1] ?? '';
    if (b64.length <= THUMB_MAX) return b64;
  }
  return undefined;
}

/** A photo redrawn (metadata left behind) at most STANDARD_SIDE px, with its thumbnail. */
async function preparePhoto(file: File): Promise<PreparedFile> {
  const bitmap = await createImageBitmap(file, { imageOrientation: 'from-image' });
  try {
    const size = fit(bitmap.width, bitmap.height, STANDARD_SIDE);
    const canvas = canvasOf(size.width, size.height);
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('This image could not be read.');
    // PNGs may be transparent: kept PNG; every other photo goes as JPEG.
    const type = file.type === 'image/png' ? 'image/png' : 'image/jpeg';
    if (type === 'image/jpeg') {
      ctx.fillStyle = '#fff';
      ctx.fillRect(0, 0, size.width, size.height);
    }
    ctx.drawImage(bitmap, 0, 0, size.width, size.height);
    const blob = await toBlob(canvas, type, 0.85);
    const base = file.name.replace(/\.[^.]*$/, '') || 'photo';
    const thumb = thumbnailOf(bitmap);
    return {
      file: blob,
      name: `${base}.${type === 'image/png' ? 'png' : 'jpg'}`,
      type,
      kind: 'image',
      width: size.width,
      height: size.height,
      ...(thumb ? { thumb } : {}),
    };
  } finally {
    bitmap.close();
  }
}

/** What is sent for `file`: a photo prepared (unless `asFile`), anything else as it is. */
export async function prepareFile(file: File, asFile = false): Promise<PreparedFile> {
  if (!asFile && isPhoto(file)) {
    try {
      return await preparePhoto(file);
    } catch {
      // A photo the browser cannot decode goes as a file.
    }
  }
  return { file, name: file.name || 'file', type: file.type, kind: 'file' };
}

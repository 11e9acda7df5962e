/**
 * A camera for tests: Chromium plays a Y4M file as its camera (--use-file-for-fake-video-
 * capture), so a page that scans a QR code can be shown one. The picture is the code, black
 * on white in a 480×480 frame with a quiet zone; one frame, which Chromium repeats.
 */
import { writeFileSync } from 'node:fs';
import { encode } from 'uqr';

const SIZE = 480;

/** Writes a one-frame Y4M video showing `text` as a QR code to `file`. */
export function writeQrVideo(text: string, file: string): void {
  const qr = encode(text, { ecc: 'M', border: 4 });
  const n = qr.data.length;
  const scale = Math.floor(SIZE / n);
  const offset = Math.floor((SIZE - n * scale) / 2);
  const luma = Buffer.alloc(SIZE * SIZE, 235);
  for (let y = 0; y < n * scale; y++) {
    for (let x = 0; x < n * scale; x++) {
      if (qr.data[Math.floor(y / scale)]?.[Math.floor(x / scale)]) luma[(offset + y) * SIZE + offset + x] = 16;
    }
  }
  const chroma = Buffer.alloc((SIZE / 2) * (SIZE / 2), 128);
  const header = Buffer.from(`YUV4MPEG2 W${SIZE} H${SIZE} F30:1 Ip A1:1 C420jpeg\nFRAME\n`);
  writeFileSync(file, Buffer.concat([header, luma, chroma, chroma]));
}

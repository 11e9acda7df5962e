/** Pictures and video players the broadcast tests show, served by the browser context itself (no network). */
import { crc32, deflateSync } from 'node:zlib';
import type { BrowserContext } from '@playwright/test';

/** A 480x270 PNG (a diagonal gradient), served for the image host the tests use: the e2e machine has no internet. */
const PNG = (() => {
  const width = 480;
  const height = 270;
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    for (let x = 0; x < width; x++) {
      const t = (x / width + y / height) / 2;
      raw[row + 1 + x * 3] = Math.round(79 + (14 - 79) * t);
      raw[row + 2 + x * 3] = Math.round(70 + (165 - 70) * t);
      raw[row + 3 + x * 3] = Math.round(229 + (233 - 229) * t);
    }
  }
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
})();

/** Serves a picture at i.example.com (404 for names with 'broken') and tiny players for YouTube and Vimeo. */
export async function routeMedia(context: BrowserContext): Promise<void> {
  await context.route('https://i.example.com/**', (route) =>
    route.request().url().includes('broken')
      ? route.fulfill({ status: 404, body: 'not found' })
      : route.fulfill({ status: 200, contentType: 'image/png', body: PNG }),
  );
  for (const host of ['https://www.youtube-nocookie.com/**', 'https://player.vimeo.com/**']) {
    await context.route(host, (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/html',
        body: '<!doctype html><body style="margin:0;background:#111;color:#eee;font:16px sans-serif;display:grid;place-items:center;height:100vh">Video player</body>',
      }),
    );
  }
}

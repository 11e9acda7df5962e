/**
 * `node scripts/make-icons.ts`: the web app's PNG icons (apps/web/public/icons), drawn from
 * the favicon's design by Chromium: "any" icons with rounded corners, and maskable ones
 * (full-bleed background, the mark inside the central 80% safe zone). Run again after
 * changing the design; the PNGs are committed.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium } from '@playwright/test';

const OUT = path.resolve(import.meta.dirname, '../apps/web/public/icons');
const GRADIENT =
  '<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#6366f1"/><stop offset="1" stop-color="#0ea5e9"/></linearGradient></defs>';
const BUBBLE = 'M18 22h28a4 4 0 0 1 4 4v14a4 4 0 0 1-4 4H30l-8 7v-7h-4a4 4 0 0 1-4-4V26a4 4 0 0 1 4-4z';

function svg(maskable: boolean): string {
  // Maskable: a square background and the mark shrunk to 70% around the centre.
  const mark = maskable
    ? `<g transform="translate(32 32) scale(0.7) translate(-32 -34)"><path d="${BUBBLE}" fill="#fff"/></g>`
    : `<path d="${BUBBLE}" fill="#fff"/>`;
  const rx = maskable ? 0 : 16;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">${GRADIENT}<rect width="64" height="64" rx="${rx}" fill="url(#g)"/>${mark}</svg>`;
}

const browser = await chromium.launch({
  executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu'],
});
mkdirSync(OUT, { recursive: true });
for (const [name, size, maskable] of [
  ['icon-192.png', 192, false],
  ['icon-512.png', 512, false],
  ['maskable-192.png', 192, true],
  ['maskable-512.png', 512, true],
  ['apple-touch-icon.png', 180, true],
] as const) {
  const page = await browser.newPage({ viewport: { width: size, height: size } });
  await page.setContent(
    `<html><body style="margin:0;background:transparent">${svg(maskable).replace('<svg ', `<svg width="${size}" height="${size}" `)}</body></html>`,
  );
  await page.screenshot({ path: path.join(OUT, name), omitBackground: true });
  await page.close();
}
await browser.close();
console.log(`icons written to ${OUT}`);

/**
 * `npm run bench:attachments`: a 1 GB attachment uploaded and downloaded through a Parley
 * server (tus PATCHes of 8 MiB, as the web client sends them; one GET back), against a plain
 * file copy over the same loopback in the same run (a bare Node HTTP server that streams a
 * PUT to a file and the file back to a GET). Reports each direction's MB/s, their ratio to
 * the copy, and each server's resident memory: idle, and its peak during the transfer.
 *
 *   npm run bench:attachments               1,024 MB
 *   npm run bench:attachments -- --mb 256
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { API } from '@app/protocol';
import { SERVER_NODE_FLAGS } from '@app/server';
import { freePort, spawnServer } from '@app/server/spawn';
import { rssOf, settledRss } from './proc.ts';
import { seed } from './seed.ts';

const args = process.argv.slice(2);
const at = args.indexOf('--mb');
const MB = 1_000_000;
const SIZE = (at >= 0 ? Number(args[at + 1]) : 1024) * MB;
const CHUNK = 8 * 1024 * 1024;
const block = randomBytes(CHUNK);

/** `size` bytes, streamed from one random block (never held whole). */
function source(size: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) return this.push(null);
      const n = Math.min(CHUNK, size - sent);
      sent += n;
      this.push(n === CHUNK ? block : block.subarray(0, n));
    },
  });
}

async function drain(res: Response): Promise<number> {
  let n = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) n += chunk.length;
  return n;
}

const BASELINE = `
const http = require('node:http'); const fs = require('node:fs');
const file = process.argv[1];
http.createServer((req, res) => {
  if (req.method === 'PUT') { req.pipe(fs.createWriteStream(file)).on('finish', () => res.end()); return; }
  res.writeHead(200, { 'content-type': 'application/octet-stream' }); fs.createReadStream(file).pipe(res);
}).listen(Number(process.argv[2]), '127.0.0.1', () => console.log('ready'));`;

async function timed<T>(f: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await f();
  return { ms: performance.now() - t0, value };
}

const rate = (bytes: number, ms: number) => bytes / MB / (ms / 1000);

async function baseline(dir: string): Promise<{ up: number; down: number; idle: number; peak: number }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['-e', BASELINE, path.join(dir, 'plain.bin'), String(port)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await once(child.stdout, 'data');
  const url = `http://127.0.0.1:${port}/file`;
  const pid = child.pid as number;
  const idle = rssOf(pid);
  let peak = idle;
  const sampler = setInterval(() => {
    if (child.exitCode === null) peak = Math.max(peak, rssOf(pid));
  }, 50);
  try {
    const up = await timed(() =>
      fetch(url, {
        method: 'PUT',
        body: Readable.toWeb(source(SIZE)) as ReadableStream,
        duplex: 'half',
      } as RequestInit),
    );
    const down = await timed(async () => drain(await fetch(url)));
    if (down.value !== SIZE) throw new Error(`plain copy read back ${down.value} bytes`);
    return { up: rate(SIZE, up.ms), down: rate(SIZE, down.ms), idle, peak };
  } finally {
    clearInterval(sampler);
    child.kill();
  }
}

const SECRET = 'bench-attachments-secret-0123456789abcdef01';

async function parley(
  dir: string,
): Promise<{ up: number; down: number; idle: number; upPeak: number; downPeak: number }> {
  const port = await freePort();
  const dataDir = path.join(dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  const [user] = await seed(1, { dataDir, pgUrl: null, schema: '', tag: 'att', secret: SECRET });
  const cookie = `sid=${user?.token}`;
  const server = await spawnServer({
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      SESSION_SECRET: SECRET,
      KDF_COST: '10',
      LOG_LEVEL: 'warn',
      WEB_DIST: '',
      ATTACHMENT_MAX_BYTES: String(SIZE),
      ATTACHMENT_QUOTA_BYTES: String(2 * SIZE),
      RATE_LIMIT_API_PER_MINUTE: '100000',
    },
    healthz: `http://127.0.0.1:${port}`,
    // SIGUSR2 collects garbage (the idle figure is after it).
    nodeArgs: [...SERVER_NODE_FLAGS],
  });
  const pid = server.child.pid as number;
  try {
    const tus = { cookie, 'tus-resumable': '1.0.0' };
    const idle = await settledRss([pid]);
    let peak = idle;
    const sampler = setInterval(() => {
      if (server.child.exitCode === null) peak = Math.max(peak, rssOf(pid));
    }, 50);
    try {
      // The sealed length: a file of SIZE - its tags would seal to SIZE; the server checks lengths, not contents.
      const up = await timed(async () => {
        const created = await fetch(server.url + API.attachmentUploads, {
          method: 'POST',
          headers: { ...tus, 'upload-length': String(SIZE) },
        });
        const location = created.headers.get('location');
        if (created.status !== 201 || !location)
          throw new Error(`create failed: ${created.status} ${await created.text()}`);
        for (let offset = 0; offset < SIZE; offset += CHUNK) {
          const n = Math.min(CHUNK, SIZE - offset);
          // Streamed, as a browser sends a Blob's slice (undici copies a Buffer body first).
          const r = await fetch(server.url + location, {
            method: 'PATCH',
            headers: {
              ...tus,
              'upload-offset': String(offset),
              'content-type': 'application/offset+octet-stream',
              'content-length': String(n),
            },
            body: Readable.toWeb(source(n)) as ReadableStream,
            duplex: 'half',
          } as RequestInit);
          if (r.status !== 204) throw new Error(`PATCH failed: ${r.status} ${await r.text()}`);
        }
        return location.split('/').at(-1) as string;
      });
      const upPeak = peak;
      peak = idle;
      const down = await timed(async () =>
        drain(await fetch(`${server.url}${API.attachments}/${up.value}`, { headers: { cookie } })),
      );
      if (down.value !== SIZE) throw new Error(`Parley read back ${down.value} bytes`);
      return { up: rate(SIZE, up.ms), down: rate(SIZE, down.ms), idle, upPeak, downPeak: peak };
    } catch (e) {
      console.error(server.output());
      throw e;
    } finally {
      clearInterval(sampler);
    }
  } finally {
    await server.stop();
  }
}

const dir = mkdtempSync(path.join(tmpdir(), 'parley-bench-attachments-'));
try {
  console.log(`${SIZE / MB} MB up and down over loopback (files under ${dir})`);
  const plain = await baseline(dir);
  rmSync(path.join(dir, 'plain.bin'), { force: true });
  const p = await parley(dir);
  const row = (name: string, up: number, down: number, base?: { up: number; down: number }) =>
    console.log(
      `${name.padEnd(22)} upload ${up.toFixed(0).padStart(5)} MB/s${base ? ` (${(up / base.up).toFixed(2)}×)` : '        '}   download ${down.toFixed(0).padStart(5)} MB/s${base ? ` (${(down / base.down).toFixed(2)}×)` : ''}`,
    );
  row('plain file copy', plain.up, plain.down);
  row('Parley (tus + GET)', p.up, p.down, plain);
  const mib = (b: number) => (b / 1024 / 1024).toFixed(0);
  console.log(
    `Parley server RSS: idle ${mib(p.idle)} MiB; peak uploading +${mib(p.upPeak - p.idle)} MiB, downloading +${mib(p.downPeak - p.idle)} MiB`,
  );
  // Node's HTTP parser copies every piece of a request body into a Buffer of its own, and
  // V8 collects them when 64 MB of them are outstanding: the copy server has the same peak.
  console.log(`plain copy server RSS: idle ${mib(plain.idle)} MiB; peak +${mib(plain.peak - plain.idle)} MiB`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

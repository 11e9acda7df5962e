/**
 * A hostile WebSocket client for tests: RFC 6455 framing written by hand over a TCP
 * socket, so it can ignore the server's close frame and keep sending, send frames before
 * or instead of hello, and tell when the server cut the TCP connection.
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { PROTOCOL_VERSION } from '@app/protocol';
import type { TestServer } from './harness.ts';
import { Waiters } from './waiters.ts';

export interface RawFrame {
  opcode: number;
  payload: Buffer;
}

export class RawWsClient {
  readonly socket: net.Socket;
  /** Text frames received, parsed as JSON. */
  readonly messages: { t: string; [k: string]: unknown }[] = [];
  /** The server's close frame: when it arrived, its code and reason. */
  closeFrame: { at: number; code: number; reason: string } | null = null;
  /** When the server ended the TCP connection. */
  endedAt: number | null = null;
  private buffer = Buffer.alloc(0);
  private readonly waiters = new Waiters('the raw socket');

  private constructor(socket: net.Socket, rest: Buffer) {
    this.socket = socket;
    socket.on('data', (chunk) => this.onData(chunk));
    socket.on('close', () => {
      this.endedAt ??= Date.now();
      this.wake();
    });
    socket.on('error', () => {});
    if (rest.length) this.onData(rest);
  }

  /** Upgrades with the session cookie (and the server's own Origin). Rejects on an HTTP refusal. */
  static open(t: TestServer, cookie: string | null, origin = t.url): Promise<RawWsClient> {
    const url = new URL(t.url);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(url.port), url.hostname);
      const key = randomBytes(16).toString('base64');
      socket.once('connect', () => {
        socket.write(
          [
            'GET /ws HTTP/1.1',
            `Host: ${url.host}`,
            'Upgrade: websocket',
            'Connection: Upgrade',
            `Sec-WebSocket-Key: ${key}`,
            'Sec-WebSocket-Version: 13',
            `Origin: ${origin}`,
            ...(cookie ? [`Cookie: sid=${cookie}`] : []),
            '',
            '',
          ].join('\r\n'),
        );
      });
      let head = Buffer.alloc(0);
      const onData = (chunk: Buffer) => {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        socket.off('data', onData);
        const status = head.subarray(0, end).toString().split('\r\n')[0] ?? '';
        if (!status.includes(' 101 ')) {
          socket.destroy();
          reject(new Error(status));
          return;
        }
        resolve(new RawWsClient(socket, head.subarray(end + 4)));
      };
      socket.on('data', onData);
      socket.once('error', reject);
    });
  }

  /** Opens and greets; resolves after the welcome. */
  static async connect(t: TestServer, cookie: string | null): Promise<RawWsClient> {
    const c = await RawWsClient.open(t, cookie);
    c.send({ t: 'hello', v: PROTOCOL_VERSION, lastSeq: null });
    await c.waitFor(() => c.messages.some((m) => m.t === 'welcome'));
    return c;
  }

  /** Writes a masked text frame, whatever state the connection is in. */
  send(frame: unknown): void {
    this.writeFrame(0x1, Buffer.from(typeof frame === 'string' ? frame : JSON.stringify(frame)));
  }

  writeFrame(opcode: number, payload: Buffer): void {
    if (this.socket.destroyed) return;
    const mask = randomBytes(4);
    const len = payload.length;
    const header =
      len < 126
        ? Buffer.from([0x80 | opcode, 0x80 | len])
        : len < 65536
          ? Buffer.from([0x80 | opcode, 0x80 | 126, len >> 8, len & 0xff])
          : (() => {
              const h = Buffer.alloc(10);
              h[0] = 0x80 | opcode;
              h[1] = 0x80 | 127;
              h.writeBigUInt64BE(BigInt(len), 2);
              return h;
            })();
    const masked = Buffer.alloc(len);
    for (let i = 0; i < len; i++) masked[i] = (payload[i] as number) ^ (mask[i % 4] as number);
    this.socket.write(Buffer.concat([header, mask, masked]));
  }

  private onData(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const frame = this.nextFrame();
      if (!frame) break;
      if (frame.opcode === 0x1) this.messages.push(JSON.parse(frame.payload.toString()));
      else if (frame.opcode === 0x8) {
        this.closeFrame ??= {
          at: Date.now(),
          code: frame.payload.length >= 2 ? frame.payload.readUInt16BE(0) : 1005,
          reason: frame.payload.subarray(2).toString(),
        };
      }
    }
    this.wake();
  }

  private nextFrame(): RawFrame | null {
    const b = this.buffer;
    if (b.length < 2) return null;
    let len = (b[1] as number) & 0x7f;
    let offset = 2;
    if (len === 126) {
      if (b.length < 4) return null;
      len = b.readUInt16BE(2);
      offset = 4;
    } else if (len === 127) {
      if (b.length < 10) return null;
      len = Number(b.readBigUInt64BE(2));
      offset = 10;
    }
    if (b.length < offset + len) return null;
    const frame = { opcode: (b[0] as number) & 0x0f, payload: b.subarray(offset, offset + len) };
    this.buffer = b.subarray(offset + len);
    return frame;
  }

  private wake(): void {
    this.waiters.wake();
  }

  waitFor(pred: () => boolean, ms = 5000): Promise<void> {
    return this.waiters.waitFor(pred, ms);
  }

  /** Resolves when the server has cut the TCP connection. */
  waitEnded(ms = 5000): Promise<void> {
    return this.waitFor(() => this.endedAt !== null, ms);
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** A real WebSocket client for integration tests: hello/resume, requests, and waiting for frames. */
import { randomUUID } from 'node:crypto';
import {
  type ChatMessage,
  type DownFrame,
  downFrameSchema,
  PROTOCOL_VERSION,
  type ResultData,
  resultSchemas,
} from '@app/protocol';
import WebSocket from 'ws';
import type { TestServer } from './harness.ts';
import { Waiters } from './waiters.ts';

type ErrorFrame = Extract<DownFrame, { t: 'error' }>;

export class WsTestClient {
  readonly ws: WebSocket;
  readonly frames: DownFrame[] = [];
  lastSeq = 0;
  welcome: Extract<DownFrame, { t: 'welcome' }> | null = null;
  closed: { code: number; reason: string } | null = null;
  private readonly waiters = new Waiters('a frame');
  private nextId = 0;

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on('message', (data) => {
      // Every frame the server sends must match the protocol: a mismatch fails the test.
      const frame = downFrameSchema.parse(JSON.parse(data.toString()));
      this.frames.push(frame);
      if (frame.t === 'update') this.lastSeq = Math.max(this.lastSeq, frame.seq);
      if (frame.t === 'welcome') {
        this.welcome = frame;
        this.lastSeq = frame.seq;
      }
      this.wake();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.wake();
    });
  }

  private wake(): void {
    this.waiters.wake();
  }

  /** Opens a socket with the session cookie; resolves once it is open (before hello). */
  static open(t: TestServer, cookie: string | null, headers: Record<string, string> = {}): Promise<WsTestClient> {
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/ws`, {
      headers: { origin: t.url, ...(cookie ? { cookie: `sid=${cookie}` } : {}), ...headers },
    });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new WsTestClient(ws)));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      ws.once('error', reject);
    });
  }

  /** Opens and greets; resolves after the welcome frame. */
  static async connect(t: TestServer, cookie: string | null, lastSeq: number | null = null): Promise<WsTestClient> {
    const c = await WsTestClient.open(t, cookie);
    c.sendRaw({ t: 'hello', v: PROTOCOL_VERSION, lastSeq });
    await c.waitFor(() => c.welcome !== null);
    return c;
  }

  sendRaw(frame: unknown): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** Waits until `pred` holds (checked on every frame), or fails after `ms`. */
  waitFor(pred: () => boolean, ms = 5000): Promise<void> {
    return this.waiters.waitFor(pred, ms);
  }

  /** Sends a request and resolves with its result, or rejects with the error frame. */
  async request<K extends keyof ResultData>(t: K, body: Record<string, unknown> = {}): Promise<ResultData[K]> {
    const id = `r${++this.nextId}`;
    this.sendRaw({ t, id, ...body });
    let answer: DownFrame | undefined;
    await this.waitFor(() => {
      answer = this.frames.find((f) => (f.t === 'result' || f.t === 'error') && f.id === id);
      return answer !== undefined || this.closed !== null;
    });
    if (!answer) throw new Error(`socket closed: ${JSON.stringify(this.closed)}`);
    if (answer.t === 'error') throw Object.assign(new Error(answer.message), { frame: answer as ErrorFrame });
    // Parsed like the web client does: a result that does not match its schema fails the test.
    return resultSchemas[t].parse((answer as { data: unknown }).data) as ResultData[K];
  }

  /** Sends a message that must be stored (not turned into a contact request). */
  async sendMessage(to: string, text: string, msgId: string = randomUUID()): Promise<ChatMessage> {
    const r = await this.request('send', { to, msgId, text });
    if (!('message' in r)) throw new Error(`sent as a contact request: ${JSON.stringify(r)}`);
    return r.message;
  }

  /** The error frame a request is answered with. */
  async requestError(t: string, body: Record<string, unknown> = {}): Promise<ErrorFrame> {
    try {
      await this.request(t as keyof ResultData, body);
    } catch (e) {
      const frame = (e as { frame?: ErrorFrame }).frame;
      if (frame) return frame;
      throw e;
    }
    throw new Error(`${t} succeeded but was expected to fail`);
  }

  updates() {
    return this.frames.filter((f): f is Extract<DownFrame, { t: 'update' }> => f.t === 'update');
  }

  waitClosed(ms = 5000): Promise<void> {
    return this.waitFor(() => this.closed !== null, ms);
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.ws.close();
    return this.waitClosed();
  }
}

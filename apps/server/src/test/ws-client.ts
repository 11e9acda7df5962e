/** A real WebSocket client for integration tests: hello/resume, requests, and waiting for frames. */
import { randomUUID } from 'node:crypto';
import type { MessageContent } from '@app/e2ee';
import {
  type ChatMessage,
  type ChatSummary,
  chatIdOf,
  type DownFrame,
  downFrameSchema,
  type NotificationItem,
  PROTOCOL_VERSION,
  type ResultData,
  resultSchemas,
} from '@app/protocol';
import WebSocket from 'ws';
import type { TestServer } from './harness.ts';
import { type Sealed, type SealedItem, Sealer } from './sealing.ts';
import { Waiters } from './waiters.ts';

/**
 * How long a request waits for its answer. A write's answer follows a commit, which waits
 * for the disk: on a shared CI machine a test's send once went unanswered for 5 s (the
 * backup test, during a pg_dump; not reproduced here in 30 runs). A test that passes
 * never waits this long.
 */
const REQUEST_WAIT_MS = 10_000;

type ErrorFrame = Extract<DownFrame, { t: 'error' }>;

export class WsTestClient {
  readonly ws: WebSocket;
  readonly frames: DownFrame[] = [];
  lastSeq = 0;
  welcome: Extract<DownFrame, { t: 'welcome' }> | null = null;
  closed: { code: number; reason: string } | null = null;
  /** Seals and opens messages for this socket's person (by default theirs from `Sealer.of`). */
  sealer: Sealer | null = null;
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
  waitFor(pred: () => boolean, ms = 5000, what?: string): Promise<void> {
    return this.waiters.waitFor(pred, ms, what);
  }

  /**
   * Sends a request and resolves with its result, or rejects with the error frame (or after
   * REQUEST_WAIT_MS without an answer).
   */
  async request<K extends keyof ResultData>(t: K, body: Record<string, unknown> = {}): Promise<ResultData[K]> {
    const id = `r${++this.nextId}`;
    this.sendRaw({ t, id, ...body });
    let answer: DownFrame | undefined;
    await this.waitFor(
      () => {
        answer = this.frames.find((f) => (f.t === 'result' || f.t === 'error') && f.id === id);
        return answer !== undefined || this.closed !== null;
      },
      REQUEST_WAIT_MS,
      `the answer to ${t} ${id}`,
    );
    if (!answer) throw new Error(`socket closed: ${JSON.stringify(this.closed)}`);
    if (answer.t === 'error') throw Object.assign(new Error(answer.message), { frame: answer as ErrorFrame });
    // Parsed like the web client does: a result that does not match its schema fails the test.
    return resultSchemas[t].parse((answer as { data: unknown }).data) as ResultData[K];
  }

  /** This socket's person's sealer: the one set, or the one the harness made at sign-up. */
  sealerOf(): Sealer {
    const s = this.sealer ?? (this.welcome ? Sealer.of(this.welcome.userId) : undefined);
    if (!s) throw new Error('no sealer for this socket: set `sealer` (or greet it first)');
    return s;
  }

  /** A `send` frame's body: `text` sealed for `to` (with the chat's next key when it needs one). */
  async sealedSend(
    to: string,
    text: string | MessageContent,
    msgId: string = randomUUID(),
  ): Promise<{ to: string; msgId: string } & Sealed> {
    return { to, msgId, ...(await this.sealerOf().seal(to, msgId, text, 0, this)) };
  }

  /** An `edit` frame's body: `text` sealed as revision `rev` (by default the next one) of `msgId`. */
  async sealedEdit(chatId: string, msgId: string, text: string, rev?: number) {
    const s = this.sealerOf();
    const [a, b] = chatId.split('_');
    const peerId = a === s.userId ? (b as string) : (a as string);
    const ct = (await s.seal(peerId, msgId, text, rev ?? s.revOf(chatId, msgId) + 1, this)).ct;
    return { chatId, msgId, ct };
  }

  /**
   * Sends `text` sealed; the result is a stored message or a contact request. Like a
   * browser, a send whose new chat key lost a race to the peer's (`conflict`) is sealed
   * again under the winner's key and sent once more, with the same message id.
   */
  async send(to: string, text: string | MessageContent, msgId: string = randomUUID()): Promise<ResultData['send']> {
    const s = this.sealerOf();
    const body = await this.sealedSend(to, text, msgId);
    let r: ResultData['send'];
    try {
      r = await this.request('send', body);
    } catch (e) {
      if (!body.chatKey || (e as { frame?: ErrorFrame }).frame?.code !== 'conflict') throw e;
      const again = await this.sealedSend(to, text, msgId);
      if (again.chatKey) throw e;
      r = await this.request('send', again);
    }
    if ('message' in r) s.stored(r.message.chatId, msgId, r.message.rev);
    return r;
  }

  /** Sends a sealed message that must be stored (not turned into a contact request). */
  async sendMessage(to: string, text: string | MessageContent, msgId: string = randomUUID()): Promise<ChatMessage> {
    const r = await this.send(to, text, msgId);
    if (!('message' in r)) throw new Error(`sent as a contact request: ${JSON.stringify(r)}`);
    return r.message;
  }

  /** Edits one's own message: `text` sealed as the next revision (or `rev`). */
  async editMessage(chatId: string, msgId: string, text: string, rev?: number): Promise<ChatMessage> {
    const { message } = await this.request('edit', await this.sealedEdit(chatId, msgId, text, rev));
    this.sealerOf().stored(chatId, msgId, message.rev);
    return message;
  }

  /** A delete of one's own message as a browser sends it: with its tombstone, the next revision. */
  async sealedDelete(chatId: string, msgId: string, rev?: number) {
    const s = this.sealerOf();
    const [a, b] = chatId.split('_');
    const peerId = a === s.userId ? (b as string) : (a as string);
    const ct = await s.tombstone(peerId, msgId, rev ?? s.revOf(chatId, msgId) + 1, this);
    return { chatId, msgId, ct };
  }

  /** Deletes one's own message (with its tombstone); the deleted message. */
  async deleteMessage(chatId: string, msgId: string, rev?: number): Promise<ChatMessage> {
    const { message } = await this.request('delete', await this.sealedDelete(chatId, msgId, rev));
    return message;
  }

  /**
   * The text of a message (or of anything carrying a sealed text) as this socket's person
   * reads it: opened with the chat's key, its legacy text, or null (deleted, withheld).
   */
  textOf(item: SealedItem): Promise<string | null> {
    return this.sealerOf().open(item, this);
  }

  /** The texts of the history with `peerId` (its newest page) as this socket's person reads them. */
  async historyTexts(peerId: string): Promise<(string | null)[]> {
    const { messages } = await this.request('history', { peerId });
    return Promise.all(messages.map((m) => this.textOf(m)));
  }

  /** The text of a chat's newest message, as the chat list shows it (null: none, deleted, withheld). */
  async lastText(chat: ChatSummary): Promise<string | null> {
    if (!chat.last || chat.last.deleted) return null;
    return this.textOf({ chatId: chat.chatId, ...chat.last });
  }

  /** What a notification says: a request's first message opened, or the item's own text. */
  notificationText(item: NotificationItem): Promise<string | null> {
    if (item.type !== 'request') return Promise.resolve(item.message);
    return this.requestText(item, item.fromId, this.sealerOf().userId);
  }

  /** The text of a request's first message (a `request` notification item, or `access.pending`). */
  requestText(item: { msgId: string; ct: string | null; legacyText: string | null }, fromId: string, toId: string) {
    const { msgId, ct, legacyText } = item;
    return this.textOf({ chatId: chatIdOf(fromId, toId), id: msgId, senderId: fromId, rev: 0, ct, legacyText });
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

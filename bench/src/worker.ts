/**
 * A load-generator process: holds a share of the benchmark's WebSocket clients and runs
 * the phases the orchestrator (main.ts) asks for over IPC. Frames are inspected with
 * cheap string checks; only message deliveries are parsed.
 *
 * Messages are sealed (sealed-mix.ts): each send carries a ciphertext from a pool made at
 * start, of the sizes real messages seal to. Since the text is sealed, the phase tag and
 * the send time travel in the message id: `L` or `T`, the time in microseconds (base 36),
 * `_`, then this process's nonce and a counter, 36 characters in all like a browser's UUID.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { makePool } from './sealed-mix.ts';

export interface ClientSpec {
  userId: string;
  token: string;
  /** Who this client writes to. */
  peer: string;
  /** The server process it connects to. */
  url: string;
}

export type Command =
  | { cmd: 'connect'; clients: ClientSpec[]; relay: boolean; version: number }
  | { cmd: 'latency'; senders: number; ratePerSecond: number; durationMs: number }
  | { cmd: 'throughput'; senders: number; window: number; warmupMs: number; durationMs: number }
  | { cmd: 'close' };

export type Reply =
  | { ok: 'connected'; connected: number; failed: number; firstError: string | null }
  | {
      ok: 'latency';
      samples: number[];
      sent: number;
      errors: number;
      firstError: string | null;
      /** Sends acknowledged (stored) since this load generator started, every phase counted. */
      ackedTotal: number;
    }
  | {
      ok: 'throughput';
      acked: number;
      delivered: number;
      errors: number;
      firstError: string | null;
      /** This load generator's CPU time during the phase (ms). */
      cpuMs: number;
      /** What was sent during the phase: the send frames, their JSON and ciphertext bytes, and the text they stand for. */
      sent: number;
      sentFrameBytes: number;
      ctBytes: number;
      textChars: number;
      textBytes: number;
      /** The message updates delivered during the phase: their JSON bytes. */
      deliveredFrameBytes: number;
      /** As in the latency reply. */
      ackedTotal: number;
    }
  | { ok: 'closed' };

interface Client {
  spec: ClientSpec;
  ws: WebSocket;
}

const now = () => performance.timeOrigin + performance.now();
const clients: Client[] = [];
let errors = 0;
let firstError: string | null = null;
let samples: number[] = [];
let measuring: { from: number; to: number } | null = null;
let delivered = 0;
let acked = 0;
/** Every acknowledgement (a send's result), whatever the phase: compared with the server's /metrics. */
let ackedTotal = 0;
/** Every send frame written and every error frame received, whatever the phase. */
let sentTotal = 0;
let erroredTotal = 0;

/**
 * Waits (up to `maxMs`) until every send has its answer, so the server's counters can be
 * read against ours: an overloaded server still has some in flight when a phase ends.
 */
async function drain(maxMs: number): Promise<void> {
  const until = now() + maxMs;
  while (ackedTotal + erroredTotal < sentTotal && now() < until) await new Promise((r) => setTimeout(r, 20));
}
/** Throughput mode, during the measured part: what went out and what came in. */
const wire = { sent: 0, sentFrameBytes: 0, ctBytes: 0, textChars: 0, textBytes: 0, deliveredFrameBytes: 0 };
/** Throughput mode: on each acknowledgement, the sender sends its next message. */
let onAck: ((c: Client) => void) | null = null;

function reply(r: Reply): void {
  process.send?.(r);
}

function onFrame(c: Client, text: string): void {
  if (text.startsWith('{"t":"result"')) {
    ackedTotal++;
    const t = now();
    if (measuring && t >= measuring.from && t <= measuring.to) acked++;
    onAck?.(c);
    return;
  }
  if (text.startsWith('{"t":"error"')) {
    erroredTotal++;
    errors++;
    firstError ??= text.slice(0, 200);
    return;
  }
  if (!text.includes('"kind":"message"')) return; // summaries, presence, pongs
  const f = JSON.parse(text) as { update: { message: { id: string; senderId: string; status: string } } };
  const m = f.update.message;
  if (m.senderId === c.spec.userId || m.status !== 'sent') return;
  const t = now();
  if (m.id.startsWith('L')) samples.push(t - sentAt(m.id));
  else if (m.id.startsWith('T') && measuring && t >= measuring.from && t <= measuring.to) {
    delivered++;
    wire.deliveredFrameBytes += text.length;
  }
}

function open(url: string, spec: ClientSpec, relay: boolean, version: number): Promise<Client> {
  return new Promise((resolve, reject) => {
    const origin = url.replace(/^ws/, 'http').replace(/\/ws$/, '');
    const ws = new WebSocket(url, { headers: { origin, cookie: `sid=${spec.token}` }, perMessageDeflate: false });
    const c: Client = { spec, ws };
    const timer = setTimeout(() => reject(new Error('no welcome within 30 s')), 30_000);
    ws.on('open', () => {
      ws.send(JSON.stringify({ t: 'hello', v: version, lastSeq: null, ...(relay ? { userId: spec.userId } : {}) }));
    });
    ws.on('message', (data) => {
      const text = data.toString();
      if (text.startsWith('{"t":"welcome"')) {
        clearTimeout(timer);
        resolve(c);
        return;
      }
      onFrame(c, text);
    });
    ws.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`closed ${code}`));
    });
    ws.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** Sealed messages of realistic sizes, made once (random bytes cost more than sending them). */
const pool = makePool(4096);
let poolNext = Math.floor(Math.random() * pool.length);
const idNonce = randomBytes(6).toString('base64url');
let idCount = 0;

/** A message id saying its phase and when it was sent (see the top of this file). */
function messageId(tag: 'L' | 'T'): string {
  const head = `${tag}${Math.round(now() * 1000).toString(36)}_${idNonce}`;
  return head + (++idCount).toString(36).padStart(36 - head.length, '0');
}

/** When a message with this id was sent (ms, as `now()`). */
function sentAt(msgId: string): number {
  return Number.parseInt(msgId.slice(1, msgId.indexOf('_')), 36) / 1000;
}

function send(c: Client, tag: 'L' | 'T'): void {
  if (c.ws.readyState !== WebSocket.OPEN) return;
  const m = pool[poolNext++ % pool.length] as (typeof pool)[number];
  const frame = JSON.stringify({ t: 'send', id: randomUUID(), to: c.spec.peer, msgId: messageId(tag), ct: m.ct });
  c.ws.send(frame);
  sentTotal++;
  const t = now();
  if (tag === 'T' && measuring && t >= measuring.from && t <= measuring.to) {
    wire.sent++;
    wire.sentFrameBytes += frame.length;
    wire.ctBytes += m.ct.length;
    wire.textChars += m.chars;
    wire.textBytes += m.utf8;
  }
}

async function connect(cmd: Extract<Command, { cmd: 'connect' }>): Promise<void> {
  let failed = 0;
  let first: string | null = null;
  const queue = [...cmd.clients];
  const CONCURRENT = 64;
  await Promise.all(
    Array.from({ length: CONCURRENT }, async () => {
      for (let spec = queue.shift(); spec; spec = queue.shift()) {
        try {
          clients.push(await open(spec.url, spec, cmd.relay, cmd.version));
        } catch (e) {
          failed++;
          first ??= e instanceof Error ? e.message : String(e);
        }
      }
    }),
  );
  reply({ ok: 'connected', connected: clients.length, failed, firstError: first });
}

async function latency(cmd: Extract<Command, { cmd: 'latency' }>): Promise<void> {
  samples = [];
  errors = 0;
  firstError = null;
  const senders = clients.slice(0, cmd.senders);
  const start = now();
  let sent = 0;
  let next = 0;
  // Paced: every 5 ms, whatever is due by now goes out, round-robin over the senders.
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const elapsed = now() - start;
      const due = Math.min(
        Math.floor((elapsed / 1000) * cmd.ratePerSecond),
        Math.floor((cmd.durationMs / 1000) * cmd.ratePerSecond),
      );
      while (sent < due && senders.length > 0) {
        send(senders[next % senders.length] as Client, 'L');
        next++;
        sent++;
      }
      if (elapsed >= cmd.durationMs) {
        clearInterval(timer);
        resolve();
      }
    }, 5);
  });
  await new Promise((r) => setTimeout(r, 1000)); // the last ones land
  await drain(30_000);
  reply({ ok: 'latency', samples, sent, errors, firstError, ackedTotal });
}

async function throughput(cmd: Extract<Command, { cmd: 'throughput' }>): Promise<void> {
  errors = 0;
  firstError = null;
  delivered = 0;
  acked = 0;
  for (const k of Object.keys(wire) as (keyof typeof wire)[]) wire[k] = 0;
  const senders = clients.slice(0, cmd.senders);
  const start = now();
  const end = start + cmd.warmupMs + cmd.durationMs;
  let cpuFrom = process.cpuUsage();
  setTimeout(() => {
    cpuFrom = process.cpuUsage();
  }, cmd.warmupMs);
  measuring = { from: start + cmd.warmupMs, to: end };
  onAck = (c) => {
    if (now() < end) send(c, 'T');
  };
  for (const c of senders) for (let i = 0; i < cmd.window; i++) send(c, 'T');
  await new Promise((r) => setTimeout(r, cmd.warmupMs + cmd.durationMs));
  const used = process.cpuUsage(cpuFrom);
  await new Promise((r) => setTimeout(r, 500));
  onAck = null;
  measuring = null;
  await drain(30_000);
  reply({
    ok: 'throughput',
    acked,
    delivered,
    errors,
    firstError,
    cpuMs: (used.user + used.system) / 1000,
    ...wire,
    ackedTotal,
  });
}

process.on('message', (cmd: Command) => {
  if (cmd.cmd === 'connect') void connect(cmd);
  else if (cmd.cmd === 'latency') void latency(cmd);
  else if (cmd.cmd === 'throughput') void throughput(cmd);
  else {
    for (const c of clients) c.ws.terminate();
    reply({ ok: 'closed' });
    setTimeout(() => process.exit(0), 50);
  }
});

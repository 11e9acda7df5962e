import { type ChatMessage, chatIdOf, type ResultData } from '@app/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { memoryOutbox } from '@/test/memory-outbox';
import { type ChatSocket, type ConnectionStatus, RequestError } from './chat-socket';
import type { OutboxEntry, OutboxStore } from './outbox';
import { MAX_ATTEMPTS, Outbox, type OutboxHooks, retryDelay, sendFailureKind } from './outbox-queue';

const ME = 'A'.repeat(20);
const BOB = 'B'.repeat(20);
const CAROL = 'C'.repeat(20);

interface SendBody {
  to: string;
  msgId: string;
  text: string;
}

type Answer = (body: SendBody) => Promise<ResultData['send']>;

/** What the server answers a send it stores. */
function stored(body: SendBody): Promise<ResultData['send']> {
  const message: ChatMessage = {
    chatId: chatIdOf(ME, body.to),
    id: body.msgId,
    senderId: ME,
    recipientId: body.to,
    text: body.text,
    timestamp: Date.now(),
    status: 'sent',
    edited: false,
    deleted: false,
    deliveredAt: null,
    readAt: null,
  };
  return Promise.resolve({ message });
}

function refused(code: RequestError['code'], text = `refused: ${code}`): Promise<never> {
  return Promise.reject(new RequestError(code, text));
}

/** The socket as the outbox uses it: a status and `send` requests, answered by `answer`. */
class FakeSocket {
  status: ConnectionStatus = 'online';
  readonly sends: (SendBody & { at: number })[] = [];
  answer: Answer;
  constructor(answer: Answer) {
    this.answer = answer;
  }
  request(t: string, body: SendBody): Promise<ResultData['send']> {
    if (t !== 'send') throw new Error(`unexpected request ${t}`);
    this.sends.push({ ...body, at: Date.now() });
    return this.answer(body);
  }
}

function harness(answer: Answer, initial: readonly unknown[] = []) {
  const socket = new FakeSocket(answer);
  const acknowledged: ChatMessage[] = [];
  const failed: string[] = [];
  const hooks: OutboxHooks = {
    changed: () => {},
    acknowledged: (m) => acknowledged.push(m),
    requested: () => {},
    failed: (text) => failed.push(text),
  };
  const { rows, store } = memoryOutbox(initial);
  // Retries at the top of their jitter: the waits below are exact.
  const outbox = new Outbox(ME, socket as unknown as ChatSocket, hooks, store, () => 1);
  const row = (msgId: string) => rows.get(msgId) as OutboxEntry | undefined;
  return { socket, outbox, acknowledged, failed, rows, row };
}

/** Lets timers due within `ms` fire and the promises they start settle. */
async function after(ms = 0): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
}

beforeEach(() => {
  vi.useFakeTimers({ now: 1_700_000_000_000 });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('sendFailureKind and retryDelay', () => {
  it('sorts every error: offline waits, refusals are final, everything else is tried again', () => {
    expect(sendFailureKind('offline')).toBe('offline');
    for (const code of ['timeout', 'rate_limited', 'internal', 'something_new']) {
      expect(sendFailureKind(code), code).toBe('transient');
    }
    for (const code of [
      'invalid_frame',
      'forbidden',
      'not_found',
      'conflict',
      'recipient_unavailable',
      'request_pending',
      'too_large',
      'pin_required',
      'locked',
    ]) {
      expect(sendFailureKind(code), code).toBe('permanent');
    }
    // Not an own property of the table.
    expect(sendFailureKind('toString')).toBe('transient');
  });

  it('waits 1 s, doubling, at most 30 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(retryDelay)).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
  });
});

describe('Outbox', () => {
  it('tries a transient failure again with backoff, and gives up after MAX_ATTEMPTS attempts', async () => {
    const h = harness(() => refused('timeout', 'The server did not answer in time. Please try again.'));
    h.outbox.add(BOB, 'hello');
    await after();
    expect(h.socket.sends).toHaveLength(1);
    const [id] = h.socket.sends.map((s) => s.msgId);

    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      const wait = retryDelay(attempt);
      await after(wait - 1);
      expect(h.socket.sends, `not before ${wait} ms`).toHaveLength(attempt);
      await after(1);
      expect(h.socket.sends).toHaveLength(attempt + 1);
    }
    expect(new Set(h.socket.sends.map((s) => s.msgId))).toEqual(new Set([id]));
    expect(h.socket.sends.map((s, i) => (i === 0 ? 0 : s.at - (h.socket.sends[i - 1]?.at ?? 0)))).toEqual([
      0, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000,
    ]);

    // The last attempt failed: kept, marked, told once, and not tried again.
    const [m] = h.outbox.messagesTo(BOB);
    expect(m).toMatchObject({
      id,
      text: 'hello',
      pending: true,
      failed: 'The server did not answer in time. Please try again.',
    });
    expect(h.failed).toEqual(['The server did not answer in time. Please try again.']);
    expect(h.row(id as string)?.failed).toMatchObject({ code: 'timeout' });
    await after(10 * 60_000);
    h.outbox.flush();
    await after();
    expect(h.socket.sends).toHaveLength(MAX_ATTEMPTS);
  });

  it('does not count a lost connection as an attempt: the message waits for the reconnection', async () => {
    let losses = 0;
    const h = harness((body) => (losses++ < MAX_ATTEMPTS + 2 ? refused('offline') : stored(body)));
    h.outbox.add(BOB, 'through the tunnel');
    await after();
    expect(h.socket.sends).toHaveLength(1);
    // No timer: nothing happens until the connection is back.
    await after(60_000);
    expect(h.socket.sends).toHaveLength(1);
    for (let i = 0; i < MAX_ATTEMPTS + 2; i++) {
      h.outbox.flush();
      await after();
    }
    expect(h.socket.sends).toHaveLength(MAX_ATTEMPTS + 3);
    expect(h.failed).toEqual([]);
    expect(h.acknowledged.map((m) => m.text)).toEqual(['through the tunnel']);
    expect(h.outbox.messagesTo(BOB)).toEqual([]);
    expect(h.rows.size).toBe(0);
  });

  it('sends nothing while offline and everything once online', async () => {
    const h = harness(stored);
    h.socket.status = 'offline';
    h.outbox.add(BOB, 'one');
    await after();
    expect(h.socket.sends).toHaveLength(0);
    expect(h.outbox.messagesTo(BOB).map((m) => [m.text, m.pending])).toEqual([['one', true]]);
    h.socket.status = 'online';
    h.outbox.flush();
    await after();
    expect(h.acknowledged.map((m) => m.text)).toEqual(['one']);
  });

  it('a permanent refusal fails the message at once: it stays, marked with the reason, stored, and is not sent again', async () => {
    const h = harness(() => refused('recipient_unavailable', 'This account is not available'));
    h.outbox.add(BOB, 'are you there?');
    await after();
    expect(h.socket.sends).toHaveLength(1);
    const id = h.socket.sends[0]?.msgId as string;

    expect(h.outbox.messagesTo(BOB)).toEqual([
      expect.objectContaining({ id, text: 'are you there?', pending: true, failed: 'This account is not available' }),
    ]);
    expect(h.failed).toEqual(['This account is not available']);
    expect(h.row(id)).toMatchObject({
      msgId: id,
      to: BOB,
      text: 'are you there?',
      failed: { code: 'recipient_unavailable', reason: 'This account is not available' },
    });

    await after(10 * 60_000);
    h.outbox.flush();
    await after();
    expect(h.socket.sends).toHaveLength(1);
  });

  it('a failed message does not hold back later ones, which go out in order', async () => {
    const h = harness((body) => (body.text === 'too big' ? refused('too_large', 'Message too large') : stored(body)));
    h.outbox.add(BOB, 'too big');
    h.outbox.add(BOB, 'second');
    h.outbox.add(CAROL, 'to carol');
    h.outbox.add(BOB, 'third');
    await after();
    expect(h.socket.sends.filter((s) => s.to === BOB).map((s) => s.text)).toEqual(['too big', 'second', 'third']);
    expect(h.acknowledged.map((m) => m.text).sort()).toEqual(['second', 'third', 'to carol']);
    expect(h.outbox.messagesTo(BOB).map((m) => [m.text, m.failed])).toEqual([['too big', 'Message too large']]);
    expect(h.outbox.messagesTo(CAROL)).toEqual([]);

    // A new message later goes out too.
    h.outbox.add(BOB, 'fourth');
    await after();
    expect(h.acknowledged.map((m) => m.text)).toContain('fourth');
    expect(h.outbox.messagesTo(BOB).map((m) => m.text)).toEqual(['too big']);
  });

  it('a message waiting to be tried again holds back the next one (order is kept)', async () => {
    let failures = 0;
    const h = harness((body) => (body.text === 'first' && failures++ < 2 ? refused('internal') : stored(body)));
    h.outbox.add(BOB, 'first');
    h.outbox.add(BOB, 'second');
    await after();
    expect(h.socket.sends.map((s) => s.text)).toEqual(['first']);
    await after(retryDelay(1));
    expect(h.socket.sends.map((s) => s.text)).toEqual(['first', 'first']);
    await after(retryDelay(2));
    expect(h.socket.sends.map((s) => s.text)).toEqual(['first', 'first', 'first', 'second']);
    expect(h.acknowledged.map((m) => m.text)).toEqual(['first', 'second']);
    expect(h.failed).toEqual([]);
  });

  it('a new connection tries a message in backoff at once', async () => {
    let failures = 0;
    const h = harness((body) => (failures++ < 3 ? refused('timeout') : stored(body)));
    h.outbox.add(BOB, 'hi');
    await after();
    await after(retryDelay(1));
    await after(retryDelay(2));
    expect(h.socket.sends).toHaveLength(3);
    h.outbox.flush();
    await after();
    expect(h.socket.sends).toHaveLength(4);
    expect(h.acknowledged.map((m) => m.text)).toEqual(['hi']);
    // The cancelled timer sends nothing more.
    await after(60_000);
    expect(h.socket.sends).toHaveLength(4);
  });

  it('Retry queues a failed message again with its id and fresh attempts', async () => {
    let mode: 'refuse' | 'timeout' | 'store' = 'timeout';
    const h = harness((body) =>
      mode === 'store' ? stored(body) : mode === 'refuse' ? refused('recipient_unavailable') : refused('timeout'),
    );
    h.outbox.add(BOB, 'again');
    await after(10 * 60_000);
    expect(h.socket.sends).toHaveLength(MAX_ATTEMPTS);
    const id = h.socket.sends[0]?.msgId as string;
    expect(h.outbox.messagesTo(BOB)[0]?.failed).toBeDefined();

    // Retried: waiting again (not failed, in storage too), and a full set of attempts.
    expect(h.outbox.retry(id)).toBe(true);
    expect(h.outbox.messagesTo(BOB)).toEqual([expect.objectContaining({ id, pending: true })]);
    expect(h.outbox.messagesTo(BOB)[0]?.failed).toBeUndefined();
    await after();
    expect(h.row(id)?.failed).toBeUndefined();
    await after(retryDelay(1) + retryDelay(2) + retryDelay(3));
    expect(h.socket.sends).toHaveLength(MAX_ATTEMPTS + 4);
    expect(h.outbox.messagesTo(BOB)[0]?.failed).toBeUndefined();

    mode = 'refuse';
    await after(retryDelay(4));
    expect(h.outbox.messagesTo(BOB)[0]?.failed).toBe('refused: recipient_unavailable');
    expect(h.failed).toHaveLength(2);

    mode = 'store';
    expect(h.outbox.retry(id)).toBe(true);
    await after();
    expect(new Set(h.socket.sends.map((s) => s.msgId))).toEqual(new Set([id]));
    expect(h.acknowledged.map((m) => m.id)).toEqual([id]);
    expect(h.outbox.messagesTo(BOB)).toEqual([]);
    expect(h.rows.size).toBe(0);
    // Nothing left to retry.
    expect(h.outbox.retry(id)).toBe(false);
  });

  it('Delete forgets a failed message, from the conversation and from storage', async () => {
    const h = harness((body) => (body.text === 'nope' ? refused('forbidden') : stored(body)));
    h.socket.status = 'offline';
    h.outbox.add(BOB, 'nope');
    h.outbox.add(BOB, 'later');
    await after();
    const [nope, later] = h.outbox.messagesTo(BOB).map((m) => m.id) as [string, string];
    // Only a failed message can be deleted: a waiting one is on its way.
    expect(h.outbox.discard(nope)).toBe(false);
    expect(h.outbox.discard(later)).toBe(false);

    h.socket.status = 'online';
    h.outbox.flush();
    await after();
    expect(h.outbox.messagesTo(BOB).map((m) => m.id)).toEqual([nope]);
    expect(h.outbox.discard(nope)).toBe(true);
    expect(h.outbox.messagesTo(BOB)).toEqual([]);
    await after();
    expect(h.rows.size).toBe(0);
    expect(h.outbox.discard(nope)).toBe(false);
    expect(h.outbox.retry(nope)).toBe(false);
  });

  it('after a reload: failed messages are shown failed and not sent, older entries are sent, malformed ones skipped', async () => {
    const old = { msgId: 'old-entry-1', to: BOB, text: 'from the previous version', createdAt: 1000, userId: ME };
    const failedEntry = {
      msgId: 'failed-entry-1',
      to: BOB,
      text: 'refused before the reload',
      createdAt: 500,
      userId: ME,
      failed: { code: 'recipient_unavailable', reason: 'This account is not available', at: 600 },
    };
    const malformed = [
      null,
      'a string',
      { msgId: 'no-text-here', to: BOB, createdAt: 1, userId: ME },
      { msgId: 'bad-time-1', to: BOB, text: 'x', createdAt: 'yesterday', userId: ME },
      { msgId: 'bad-peer-1', to: 'not a user id', text: 'x', createdAt: 1, userId: ME },
      { msgId: 'bad-failure', to: BOB, text: 'x', createdAt: 1, userId: ME, failed: { code: 1 } },
      { msgId: 'someone-else', to: BOB, text: 'x', createdAt: 1, userId: CAROL },
    ];
    const h = harness(stored, [old, failedEntry, ...malformed]);
    await h.outbox.load();
    await after();
    expect(h.socket.sends.map((s) => s.msgId)).toEqual(['old-entry-1']);
    expect(h.acknowledged.map((m) => m.text)).toEqual(['from the previous version']);
    expect(h.outbox.messagesTo(BOB)).toEqual([
      expect.objectContaining({
        id: 'failed-entry-1',
        text: 'refused before the reload',
        timestamp: 500,
        failed: 'This account is not available',
      }),
    ]);
    // No toast for what failed on an earlier page.
    expect(h.failed).toEqual([]);
    // Malformed records are neither sent nor removed (a newer page may read them).
    expect(h.rows.size).toBe(1 + malformed.length);
  });

  it('forgets an entry the server turns out to have (an acknowledgement lost on the way)', async () => {
    const h = harness(() => refused('timeout'));
    h.outbox.add(BOB, 'stored after all');
    await after();
    const id = h.socket.sends[0]?.msgId as string;
    h.outbox.settled(id);
    expect(h.outbox.messagesTo(BOB)).toEqual([]);
    await after(10 * 60_000);
    expect(h.socket.sends).toHaveLength(1);
    expect(h.rows.size).toBe(0);
  });

  it('keeps sending when storage fails (the message just would not survive a reload)', async () => {
    const socket = new FakeSocket(stored);
    const acknowledged: string[] = [];
    const broken: OutboxStore = {
      put: () => Promise.reject(new Error('quota')),
      remove: () => Promise.reject(new Error('quota')),
      list: () => Promise.reject(new Error('quota')),
    };
    const outbox = new Outbox(
      ME,
      socket as unknown as ChatSocket,
      { changed: () => {}, acknowledged: (m) => acknowledged.push(m.text), requested: () => {}, failed: () => {} },
      broken,
    );
    await outbox.load();
    outbox.add(BOB, 'still goes');
    await after();
    expect(acknowledged).toEqual(['still goes']);
  });
});

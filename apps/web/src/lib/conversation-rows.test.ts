import { describe, expect, it } from 'vitest';
import type { UiMessage } from '@/client/conversations/conversation';
import { testMessage } from '../test/messages';
import { conversationRows, GROUP_GAP_MS, type Row, unreadMark } from './conversation-rows';

// Local-time dates, so the tests hold in any time zone.
const at = (d: number, h: number, min = 0) => new Date(2025, 10, d, h, min).getTime();
const fromA = (id: string, ts: number, extra: Partial<UiMessage> = {}) => testMessage(id, ts, extra);
const fromB = (id: string, ts: number, extra: Partial<UiMessage> = {}) =>
  testMessage(id, ts, { senderId: 'b', recipientId: 'a', ...extra });

/** Each row in short: 'day:<date>', 'unread:<n>', 'keys', 'e2ee', or the message id with its group edges. */
function shape(rows: Row[]): string[] {
  return rows.map((r) => {
    if (r.kind === 'day') return `day:${new Date(r.at).getDate()}`;
    if (r.kind === 'unread') return `unread:${r.count}`;
    if (r.kind === 'message') return `${r.m.id}${r.first ? '<' : ''}${r.last ? '>' : ''}`;
    return r.kind;
  });
}

describe('conversationRows', () => {
  it('is empty without messages', () => {
    expect(conversationRows([], { keyChanges: [1], e2eeSince: 1 })).toEqual([]);
  });

  it('puts a day line above the first message of each day', () => {
    const rows = conversationRows([fromA('m1', at(3, 9)), fromB('m2', at(3, 22)), fromA('m3', at(5, 1))]);
    expect(shape(rows)).toEqual(['day:3', 'm1<>', 'm2<>', 'day:5', 'm3<>']);
    const day = rows[0] as Extract<Row, { kind: 'day' }>;
    expect(day.at).toBe(at(3, 0));
  });

  it('draws the first day line only when the first message is the first of the conversation', () => {
    const messages = [fromA('m1', at(3, 9)), fromB('m2', at(3, 22)), fromA('m3', at(5, 1))];
    expect(shape(conversationRows(messages, { fromStart: false }))).toEqual(['m1<>', 'm2<>', 'day:5', 'm3<>']);
    expect(shape(conversationRows(messages, { fromStart: true }))).toEqual(['day:3', 'm1<>', 'm2<>', 'day:5', 'm3<>']);
  });

  it('groups one sender within a few minutes on one day, the tail on the last', () => {
    const rows = conversationRows([
      fromA('a1', at(3, 9, 0)),
      fromA('a2', at(3, 9, 1)),
      fromA('a3', at(3, 9, 1) + GROUP_GAP_MS),
      fromA('a4', at(3, 9, 1) + 2 * GROUP_GAP_MS + 1),
      fromB('b1', at(3, 9, 15)),
      fromB('b2', at(3, 23, 59)),
      fromB('b3', at(4, 0, 0)),
    ]);
    // a4 comes more than the gap after a3; b2 and b3 are a minute apart but on two days.
    expect(shape(rows)).toEqual(['day:3', 'a1<', 'a2', 'a3>', 'a4<>', 'b1<>', 'b2<>', 'day:4', 'b3<>']);
  });

  it('ends a group at a failed message (its "Not sent" line is under it) and at any line', () => {
    const rows = conversationRows(
      [fromA('a1', at(3, 9)), fromA('a2', at(3, 9, 1), { failed: 'x' }), fromA('a3', at(3, 9, 2))],
      { keyChanges: [at(3, 9, 1) + 1] },
    );
    expect(shape(rows)).toEqual(['day:3', 'a1<', 'a2>', 'keys', 'a3<>']);
  });

  it('puts the unread line above its message, inside the day', () => {
    const messages = [fromB('b1', at(3, 9)), fromB('b2', at(3, 9, 1)), fromB('b3', at(3, 9, 2))];
    const rows = conversationRows(messages, { unread: { id: 'b2', count: 2 } });
    expect(shape(rows)).toEqual(['day:3', 'b1<>', 'unread:2', 'b2<', 'b3>']);
    expect(shape(conversationRows(messages, { unread: { id: 'b1', count: 3 } }))).toEqual([
      'day:3',
      'unread:3',
      'b1<',
      'b2',
      'b3>',
    ]);
  });

  it('places markers by time, a day line before a marker of its day', () => {
    const rows = conversationRows([fromA('m1', at(3, 9)), fromA('m2', at(4, 9)), fromA('m3', at(4, 10))], {
      keyChanges: [at(3, 20), at(4, 8)],
      e2eeSince: at(9, 0),
    });
    expect(shape(rows)).toEqual(['day:3', 'm1<>', 'keys', 'day:4', 'keys', 'm2<>', 'm3<>', 'e2ee']);
    // Markers from before the loaded messages are not shown.
    expect(shape(conversationRows([fromA('m1', at(3, 9))], { keyChanges: [at(2, 9)], e2eeSince: at(1, 0) }))).toEqual([
      'day:3',
      'm1<>',
    ]);
  });

  it('keeps row keys unique when an outbox message repeats an earlier day', () => {
    const rows = conversationRows([
      fromA('m1', at(3, 9)),
      fromA('m2', at(4, 9)),
      fromA('p', at(3, 10), { pending: true }),
    ]);
    const keys = rows.map((r) => r.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(shape(rows)).toEqual(['day:3', 'm1<>', 'day:4', 'm2<>', 'day:3', 'p<>']);
  });
});

describe('unreadMark', () => {
  const messages = [
    fromB('b1', 1),
    fromA('a1', 2),
    fromB('b2', 3),
    fromA('a2', 4),
    fromB('b3', 5),
    fromA('p', 6, { pending: true }),
  ];

  it('is the first of the last N messages from the peer', () => {
    expect(unreadMark(messages, 'b', 1)).toEqual({ id: 'b3', count: 1 });
    expect(unreadMark(messages, 'b', 2)).toEqual({ id: 'b2', count: 2 });
    expect(unreadMark(messages, 'b', 3)).toEqual({ id: 'b1', count: 3 });
  });

  it('is the oldest loaded one from the peer when more are unread than loaded', () => {
    expect(unreadMark(messages, 'b', 40)).toEqual({ id: 'b1', count: 40 });
  });

  it('is nothing when nothing is unread or nothing is from the peer', () => {
    expect(unreadMark(messages, 'b', 0)).toBeNull();
    expect(unreadMark([fromA('a1', 1)], 'b', 2)).toBeNull();
  });
});

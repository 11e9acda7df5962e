import { describe, expect, it } from 'vitest';
import type { UiMessage } from '@/client/conversations/conversation';
import { testMessage } from '../test/messages';
import { Arrivals } from './arrivals';

// The messages are between 'a' and 'b'; the reader is 'a'.
const mine = (id: string, ts: number, extra: Partial<UiMessage> = {}) => testMessage(id, ts, extra);
const theirs = (id: string, ts: number, extra: Partial<UiMessage> = {}) =>
  testMessage(id, ts, { senderId: 'b', recipientId: 'a', ...extra });
const ids = (list: UiMessage[]) => list.map((m) => m.id);

describe('Arrivals', () => {
  it('does not count what was there when the chat opened', () => {
    const list = [theirs('b1', 1), mine('a1', 2)];
    expect(new Arrivals('a', list).take(list)).toEqual([]);
  });

  it("finds the peer's new messages, not the reader's own", () => {
    const list = [theirs('b1', 1)];
    const arrivals = new Arrivals('a', list);
    const next = [...list, mine('a1', 2), theirs('b2', 3), theirs('b3', 4)];
    expect(ids(arrivals.take(next))).toEqual(['b2', 'b3']);
    // Each only once.
    expect(arrivals.take(next)).toEqual([]);
  });

  it('finds a message that arrives before the outbox ones still waiting', () => {
    const list = [theirs('b1', 1), mine('p1', 5, { pending: true })];
    const arrivals = new Arrivals('a', list);
    expect(ids(arrivals.take([theirs('b1', 1), theirs('b2', 3), mine('p1', 5, { pending: true })]))).toEqual(['b2']);
  });

  it('does not count an older page, an edit or a deletion', () => {
    const list = [theirs('b5', 50), theirs('b6', 60)];
    const arrivals = new Arrivals('a', list);
    expect(arrivals.take([theirs('b1', 10), theirs('b2', 20), ...list])).toEqual([]);
    expect(arrivals.take([theirs('b5', 50, { edited: true }), theirs('b6', 60, { deleted: true })])).toEqual([]);
  });

  it('counts the first messages of an empty chat', () => {
    const arrivals = new Arrivals('a', []);
    expect(ids(arrivals.take([theirs('b1', 1)]))).toEqual(['b1']);
  });
});

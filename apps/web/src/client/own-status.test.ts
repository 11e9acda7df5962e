import type { ChatMessage } from '@app/protocol';
import { describe, expect, it, vi } from 'vitest';
import { testMessage } from '@/test/messages';
import { LOOKUPS_MAX, OwnStatuses } from './own-status';

/** A socket whose `history` answers wait until `answer` is called. */
function fakeSocket() {
  const asked: { peerId: string; resolve: (messages: ChatMessage[]) => void }[] = [];
  return {
    status: 'online' as 'online' | 'offline',
    asked,
    request: vi.fn(
      (_t: 'history', body: { peerId: string }) =>
        new Promise((resolve) => {
          asked.push({
            peerId: body.peerId,
            resolve: (messages) => resolve({ messages, hasMore: true, peer: null, access: { state: 'open' } }),
          });
        }),
    ),
  };
}

const make = (socket: ReturnType<typeof fakeSocket>, changed = () => {}) =>
  // The fake answers `history` only.
  new OwnStatuses('a', socket as unknown as ConstructorParameters<typeof OwnStatuses>[1], changed);

describe('OwnStatuses', () => {
  it('keeps the state of own messages only, and only moves it forward', () => {
    const own = make(fakeSocket());
    expect(own.note(testMessage('m1', 1, { status: 'delivered' }))).toBe(true);
    expect(own.note(testMessage('m1', 1, { status: 'sent' }))).toBe(false);
    expect(own.get('m1')).toBe('delivered');
    expect(own.note(testMessage('m1', 1, { status: 'read' }))).toBe(true);
    expect(own.get('m1')).toBe('read');
    expect(own.note(testMessage('p1', 1, { senderId: 'b', recipientId: 'a' }))).toBe(false);
    expect(own.get('p1')).toBeUndefined();
  });

  it('looks a message up once, two at a time, and tells when it learns its state', async () => {
    const socket = fakeSocket();
    const changed = vi.fn();
    const own = make(socket, changed);
    own.lookup('b', 'm1');
    own.lookup('b', 'm1');
    own.lookup('c', 'm2');
    own.lookup('d', 'm3');
    expect(socket.asked.map((a) => a.peerId)).toEqual(['b', 'c']);
    socket.asked[0]?.resolve([testMessage('m1', 1, { status: 'read' })]);
    await vi.waitFor(() => expect(socket.asked).toHaveLength(3));
    expect(own.get('m1')).toBe('read');
    expect(changed).toHaveBeenCalledTimes(1);
    // Known now: not asked again.
    own.lookup('b', 'm1');
    expect(socket.request).toHaveBeenCalledTimes(3);
  });

  it('asks nothing offline, and at most LOOKUPS_MAX messages until a fresh start', async () => {
    const socket = fakeSocket();
    const own = make(socket);
    socket.status = 'offline';
    own.lookup('b', 'm0');
    expect(socket.request).not.toHaveBeenCalled();
    socket.status = 'online';
    for (let i = 0; i < LOOKUPS_MAX + 5; i++) own.lookup('b', `m${i}`);
    let answered = 0;
    while (answered < socket.asked.length) {
      socket.asked[answered++]?.resolve([]);
      await new Promise((r) => setTimeout(r, 0));
    }
    expect(socket.request).toHaveBeenCalledTimes(LOOKUPS_MAX);
    own.reset();
    own.lookup('b', 'again');
    expect(socket.request).toHaveBeenCalledTimes(LOOKUPS_MAX + 1);
  });
});

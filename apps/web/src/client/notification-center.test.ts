import type { NotificationItem } from '@app/protocol';
import { sampleCiphertext } from '@app/protocol/test/samples';
import { describe, expect, it } from 'vitest';
import { NotificationCenter } from './notification-center';
import type { ChatSocket } from './socket/chat-socket';

function fakeSocket(answers: Record<string, unknown>): ChatSocket {
  return { request: async (t: string) => answers[t] } as unknown as ChatSocket;
}

const request = (id: string, timestamp: number, read = false): NotificationItem => ({
  type: 'request',
  id,
  fromId: 'x'.repeat(20),
  fromUsername: 'alice',
  msgId: `msg-${id}-0000`,
  ct: sampleCiphertext(),
  legacyText: null,
  timestamp,
  read,
});

describe('NotificationCenter', () => {
  it('keeps the list newest first and the bell count in step with live updates', async () => {
    const admin: NotificationItem = {
      type: 'admin',
      id: 'b1',
      message: 'Welcome',
      imageUrl: null,
      videoUrl: null,
      timestamp: 5,
      read: false,
    };
    const center = new NotificationCenter(
      fakeSocket({ notifications: { items: [request('r1', 1), admin], unseen: 2 } }),
      () => {},
    );
    await center.load();
    expect(center.view().items.map((n) => n.id)).toEqual(['b1', 'r1']);
    expect(center.view().unseen).toBe(2);

    center.apply({ kind: 'notification', notification: request('r2', 9) });
    expect(center.view().items[0]?.id).toBe('r2');
    expect(center.view().unseen).toBe(3);
    // The same item again (a replayed update) is not counted twice.
    center.apply({ kind: 'notification', notification: request('r2', 9) });
    expect(center.view().unseen).toBe(3);

    center.apply({ kind: 'notificationRemoved', id: 'r1' });
    expect(center.view().unseen).toBe(2);

    center.apply({ kind: 'notificationsSeen', at: 9 });
    expect(center.view().unseen).toBe(0);
    expect(center.view().items.every((n) => n.read)).toBe(true);
  });

  it('answers a request and drops it from the list', async () => {
    const center = new NotificationCenter(
      fakeSocket({ notifications: { items: [request('r1', 1)], unseen: 1 }, respondRequest: { accepted: true } }),
      () => {},
    );
    await center.load();
    await center.respond('r1', true);
    expect(center.view().items).toEqual([]);
    expect(center.view().unseen).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { testMessage } from '@/test/messages';
import { ConversationState, keepingTicks } from './conversation-state';

const msg = testMessage;

describe('ConversationState.view', () => {
  it('shows failed outbox messages where they were typed, waiting ones at the end', () => {
    const c = new ConversationState('b', 'a_b');
    c.replace([msg('m1', 10), msg('m3', 30), msg('m5', 50)], false);
    const outbox = [
      msg('f2', 20, { pending: true, failed: 'This account is not available' }),
      msg('w4', 40, { pending: true }),
      msg('f6', 60, { pending: true, failed: 'Too large' }),
    ];
    expect(c.view(() => outbox).messages.map((m) => m.id)).toEqual(['m1', 'f2', 'm3', 'm5', 'f6', 'w4']);
  });

  it('hides an outbox message the server already has, and keeps the list as is without an outbox', () => {
    const c = new ConversationState('b', 'a_b');
    c.replace([msg('m1', 10), msg('m2', 20)], false);
    const view = c.view(() => [msg('m2', 15, { pending: true, failed: 'lost ack' })]);
    expect(view.messages.map((m) => m.id)).toEqual(['m1', 'm2']);
    expect(view.messages[1]?.failed).toBeUndefined();
    c.touch();
    expect(c.view(() => []).messages).toBe(c.list);
  });
});

describe('ConversationState windows', () => {
  it('a window far back leaves out what comes after its end, outbox included, until it meets the newest', () => {
    const c = new ConversationState('b', 'a_b');
    c.replace([msg('m8', 80), msg('m9', 90)], true);
    expect(c.window([msg('m2', 20), msg('m3', 30)], true, true)).toBe(false);
    c.upsert(msg('m10', 100));
    c.upsert(msg('m3', 30, { rev: 1, edited: true }));
    expect(c.list.map((m) => [m.id, m.rev])).toEqual([
      ['m2', 0],
      ['m3', 1],
    ]);
    expect(c.view(() => [msg('w11', 110, { pending: true })]).messages.map((m) => m.id)).toEqual(['m2', 'm3']);
    c.append([msg('m4', 40)], false);
    c.upsert(msg('m10', 100));
    expect(c.list.map((m) => m.id)).toEqual(['m2', 'm3', 'm4', 'm10']);
  });

  it('a change to a message pages up is not added before the oldest (the list would have a gap)', () => {
    const c = new ConversationState('b', 'a_b');
    c.replace([msg('m8', 80), msg('m9', 90)], true);
    c.upsert(msg('m2', 20, { status: 'read' }));
    expect(c.list.map((m) => m.id)).toEqual(['m8', 'm9']);
    c.prepend([msg('m1', 10), msg('m2', 20)], false);
    c.upsert(msg('m2', 20, { status: 'read' }));
    expect(c.find('m2')?.status).toBe('read');
  });

  it('a window that meets what is loaded is joined to it', () => {
    const c = new ConversationState('b', 'a_b');
    c.replace([msg('m5', 50), msg('m6', 60), msg('m7', 70)], true);
    expect(c.window([msg('m3', 30), msg('m4', 40), msg('m5', 50)], false, true)).toBe(true);
    expect(c.list.map((m) => m.id)).toEqual(['m3', 'm4', 'm5', 'm6', 'm7']);
    expect(c).toMatchObject({ hasMore: false, hasNewer: false });
  });
});

describe('ConversationState ticks', () => {
  it("an answer made before a receipt does not take the receipt's ticks back; a new revision starts them anew", () => {
    const c = new ConversationState('b', 'a_b');
    c.replace([testMessage('m1', 1)], false);
    const read = testMessage('m1', 1, { status: 'read', deliveredAt: 2, readAt: 3 });
    c.upsert(read);
    // The send's acknowledgement, or a page asked before the read, lands after it.
    c.upsert(testMessage('m1', 1));
    expect(c.find('m1')).toMatchObject({ status: 'read', readAt: 3 });
    c.append([testMessage('m1', 1, { status: 'delivered', deliveredAt: 2 })], false);
    expect(c.find('m1')).toMatchObject({ status: 'read', readAt: 3 });
    c.replace([testMessage('m1', 1)], false);
    expect(c.find('m1')).toMatchObject({ status: 'read', readAt: 3 });
    // An edit is the next revision: its ticks start again.
    c.upsert(testMessage('m1', 1, { rev: 1, edited: true }));
    expect(c.find('m1')).toMatchObject({ status: 'sent', rev: 1 });
    expect(keepingTicks(read, testMessage('m1', 1, { deleted: true }))).toMatchObject({
      status: 'sent',
      deleted: true,
    });
  });
});

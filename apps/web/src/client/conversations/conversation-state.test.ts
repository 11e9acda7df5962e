import { describe, expect, it } from 'vitest';
import { testMessage } from '@/test/messages';
import { ConversationState } from './conversation-state';

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

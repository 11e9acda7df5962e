/** Messages for unit tests: a chat between 'a' and 'b', from 'a', text = id unless given. */
import type { UiMessage } from '../lib/conversation';

export function testMessage(id: string, timestamp: number, extra: Partial<UiMessage> = {}): UiMessage {
  return {
    chatId: 'a_b',
    id,
    senderId: 'a',
    recipientId: 'b',
    text: id,
    timestamp,
    status: 'sent',
    edited: false,
    deleted: false,
    deliveredAt: null,
    readAt: null,
    ...extra,
  };
}

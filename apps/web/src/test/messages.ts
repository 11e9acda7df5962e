/**
 * Messages for unit tests: a chat between 'a' and 'b', from 'a'. Their text is legacy
 * (a message from before encryption, shown as it is): the id unless `legacyText` is given.
 */
import type { UiMessage } from '@/client/conversations/conversation';

export function testMessage(id: string, timestamp: number, extra: Partial<UiMessage> = {}): UiMessage {
  return {
    chatId: 'a_b',
    id,
    senderId: 'a',
    recipientId: 'b',
    ct: null,
    rev: 0,
    legacyText: id,
    timestamp,
    status: 'sent',
    edited: false,
    deleted: false,
    deliveredAt: null,
    readAt: null,
    ...extra,
  };
}

import type { ChatMessage } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { describeAlert } from './desktop-notifications';

const message: ChatMessage = {
  chatId: `${'a'.repeat(20)}_${'b'.repeat(20)}`,
  id: 'msg-000001',
  senderId: 'b'.repeat(20),
  recipientId: 'a'.repeat(20),
  text: 'the secret plan',
  timestamp: 1,
  status: 'sent',
  edited: false,
  deleted: false,
  deliveredAt: null,
  readAt: null,
};

describe('describeAlert', () => {
  it('names the sender and shows the text of an ordinary chat', () => {
    const d = describeAlert({ kind: 'message', message, locked: false }, () => 'bob');
    expect(d).toEqual({
      title: '@bob',
      body: 'the secret plan',
      path: `/chat/${message.senderId}`,
      tag: `chat-${message.chatId}`,
    });
  });

  it('never puts the text of a locked chat in a notification', () => {
    const d = describeAlert({ kind: 'message', message, locked: true }, () => 'bob');
    expect(d.body).toBe('New message');
    expect(JSON.stringify(d)).not.toContain('secret');
    expect(d.path).toBe('/locked');
  });

  it('announces a contact request with its message', () => {
    const d = describeAlert(
      {
        kind: 'request',
        notification: {
          type: 'request',
          id: 'n1',
          fromId: message.senderId,
          fromUsername: 'carol',
          message: 'hi there',
          timestamp: 1,
          read: false,
        },
      },
      () => undefined,
    );
    expect(d).toMatchObject({ title: '@carol sent you a message request', body: 'hi there', path: '/notifications' });
  });

  it('announces an admin broadcast with its message', () => {
    const d = describeAlert(
      {
        kind: 'broadcast',
        notification: {
          type: 'admin',
          id: 'b1',
          message: 'Maintenance tonight',
          imageUrl: null,
          videoUrl: null,
          timestamp: 1,
          read: false,
        },
      },
      () => undefined,
    );
    expect(d).toEqual({
      title: 'Admin Notification',
      body: 'Maintenance tonight',
      path: '/notifications',
      tag: 'broadcast-b1',
    });
  });
});

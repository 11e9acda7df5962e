import type { ChatMessage, NotificationItem } from '@app/protocol';
import { sampleCiphertext } from '@app/protocol/test/samples';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Alert, ChatClient } from '@/client/chat-client';
import type { SealedRef, Shown } from '@/client/crypto/message-crypto';
import { describeAlert, startDesktopNotifications } from './desktop-notifications';

const message: ChatMessage = {
  chatId: `${'a'.repeat(20)}_${'b'.repeat(20)}`,
  id: 'msg-000001',
  senderId: 'b'.repeat(20),
  recipientId: 'a'.repeat(20),
  ct: sampleCiphertext(),
  rev: 0,
  legacyText: null,
  timestamp: 1,
  status: 'sent',
  edited: false,
  deleted: false,
  deliveredAt: null,
  readAt: null,
};

const requestItem: Extract<NotificationItem, { type: 'request' }> = {
  type: 'request',
  id: 'n1',
  fromId: message.senderId,
  fromUsername: 'carol',
  msgId: 'msg-000002',
  ct: sampleCiphertext(),
  legacyText: null,
  timestamp: 1,
  read: false,
};

describe('describeAlert', () => {
  it('names the sender and shows the text of an ordinary chat, as the tab opened it', () => {
    const d = describeAlert({ kind: 'message', message, locked: false }, () => 'bob', 'the secret plan');
    expect(d).toEqual({
      title: '@bob',
      body: 'the secret plan',
      path: `/chat/${message.senderId}`,
      tag: `chat-${message.chatId}`,
    });
  });

  it('says only "New message" when the text did not open (or was not given)', () => {
    expect(describeAlert({ kind: 'message', message, locked: false }, () => 'bob', null).body).toBe('New message');
    expect(describeAlert({ kind: 'message', message, locked: false }, () => 'bob').body).toBe('New message');
    // Never the ciphertext.
    expect(JSON.stringify(describeAlert({ kind: 'message', message, locked: false }, () => 'bob'))).not.toContain(
      message.ct?.slice(10, 30),
    );
    expect(describeAlert({ kind: 'message', message, locked: false }, () => undefined, null).title).toBe('New message');
  });

  it('never puts the text of a locked chat in a notification', () => {
    const d = describeAlert({ kind: 'message', message, locked: true }, () => 'bob', 'the secret plan');
    expect(d.body).toBe('New message');
    expect(JSON.stringify(d)).not.toContain('secret');
    expect(d.path).toBe('/locked');
  });

  it('announces a contact request with its message, or without when it did not open', () => {
    const alert: Alert = { kind: 'request', notification: requestItem };
    expect(describeAlert(alert, () => undefined, 'hi there')).toMatchObject({
      title: '@carol sent you a message request',
      body: 'hi there',
      path: '/notifications',
      tag: 'request-n1',
    });
    expect(describeAlert(alert, () => undefined, null).body).toBe('New message request');
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

describe('startDesktopNotifications', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  /** A hidden page allowed to notify, and a client whose tab opens sealed texts with `open`. */
  function page(open: (r: SealedRef) => Promise<Shown>) {
    const raised: { title: string; body: string | undefined }[] = [];
    class FakeNotification {
      static permission = 'granted';
      onclick: (() => void) | null = null;
      constructor(title: string, options: { body?: string }) {
        raised.push({ title, body: options.body });
      }
      close() {}
    }
    vi.stubGlobal('Notification', FakeNotification);
    vi.stubGlobal('window', { Notification: FakeNotification, focus: () => {} });
    vi.stubGlobal('document', { visibilityState: 'hidden' });
    let listener: ((a: Alert) => void) | null = null;
    const asked: SealedRef[] = [];
    const client = {
      userId: message.recipientId,
      onAlert: (l: (a: Alert) => void) => {
        listener = l;
        return () => {};
      },
      getUser: () => ({ username: 'bob' }),
      crypto: {
        open: (r: SealedRef) => {
          asked.push(r);
          return open(r);
        },
      },
    } as unknown as ChatClient;
    startDesktopNotifications(client, () => {});
    const tell = async (a: Alert) => {
      listener?.(a);
      await vi.waitFor(() => expect(raised.length).toBeGreaterThan(0));
      return raised.splice(0);
    };
    return { tell, asked };
  }

  it('shows the text the tab opened; "New message" when it does not open', async () => {
    let answer: Shown = { kind: 'text', text: 'see you at noon' };
    const p = page(async () => answer);
    expect(await p.tell({ kind: 'message', message, locked: false })).toEqual([
      { title: '@bob', body: 'see you at noon' },
    ]);
    expect(p.asked.map((r) => r.id)).toEqual([message.id]);
    answer = { kind: 'unverified' };
    expect(await p.tell({ kind: 'message', message: { ...message, id: 'msg-000003' }, locked: false })).toEqual([
      { title: '@bob', body: 'New message' },
    ]);
  });

  it('a failure to open is "New message", never an error', async () => {
    const p = page(() => Promise.reject(new Error('no keys')));
    expect(await p.tell({ kind: 'message', message, locked: false })).toEqual([{ title: '@bob', body: 'New message' }]);
  });

  it('does not even open the text of a locked chat', async () => {
    const p = page(async () => ({ kind: 'text', text: 'the secret plan' }));
    expect(await p.tell({ kind: 'message', message, locked: true })).toEqual([{ title: '@bob', body: 'New message' }]);
    expect(p.asked).toEqual([]);
  });

  it("opens a request's first message as from its sender to me", async () => {
    const p = page(async () => ({ kind: 'text', text: 'may I?' }));
    expect(await p.tell({ kind: 'request', notification: requestItem })).toEqual([
      { title: '@carol sent you a message request', body: 'may I?' },
    ]);
    expect(p.asked).toEqual([
      expect.objectContaining({
        chatId: message.chatId,
        id: requestItem.msgId,
        senderId: requestItem.fromId,
        recipientId: message.recipientId,
        ct: requestItem.ct,
        rev: 0,
        deleted: false,
      }),
    ]);
  });
});

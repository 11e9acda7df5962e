import { describe, expect, it } from 'vitest';
import { noticeToast } from './client-notices';

describe('noticeToast', () => {
  it('words each notice of the chat client as its toast', () => {
    expect(
      noticeToast({ kind: 'server-error', code: 'internal', message: 'Something went wrong. Please try again.' }),
    ).toEqual({
      tone: 'error',
      title: 'Error',
      text: 'Something went wrong. Please try again.',
    });
    expect(noticeToast({ kind: 'request-sent', peerId: 'B'.repeat(20), username: 'bob' })).toEqual({
      tone: 'success',
      title: 'Request Sent',
      text: '@bob can reply once they accept your request',
    });
    expect(noticeToast({ kind: 'request-sent', peerId: 'B'.repeat(20), username: null })).toEqual({
      tone: 'success',
      title: 'Request Sent',
      text: 'They can reply once they accept your request',
    });
    expect(noticeToast({ kind: 'message-not-sent', reason: 'This account is not available' })).toEqual({
      tone: 'error',
      title: 'Message Not Sent',
      text: 'This account is not available',
    });
  });
});

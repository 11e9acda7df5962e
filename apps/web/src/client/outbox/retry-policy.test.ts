import { describe, expect, it } from 'vitest';
import { retryDelay, sendFailureKind } from './retry-policy';

describe('sendFailureKind and retryDelay', () => {
  it('sorts every error: offline waits, refusals are final, everything else is tried again', () => {
    expect(sendFailureKind('offline')).toBe('offline');
    // A chat key refused (out of date, or the peer's made at the same moment) is sealed again.
    for (const code of ['timeout', 'rate_limited', 'internal', 'something_new', 'rekey_required', 'conflict']) {
      expect(sendFailureKind(code), code).toBe('transient');
    }
    for (const code of [
      'invalid_frame',
      'forbidden',
      'not_found',
      'recipient_no_keys',
      'recipient_unavailable',
      'request_pending',
      'too_large',
      'pin_required',
      'locked',
    ]) {
      expect(sendFailureKind(code), code).toBe('permanent');
    }
    // Not an own property of the table.
    expect(sendFailureKind('toString')).toBe('transient');
  });

  it('waits 1 s, doubling, at most 30 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(retryDelay)).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
  });
});

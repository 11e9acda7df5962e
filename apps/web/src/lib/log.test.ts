import { afterEach, describe, expect, it, vi } from 'vitest';
import { logEntries, logFailure, logged } from './log';

describe('the client log', () => {
  afterEach(() => vi.restoreAllMocks());

  it('keeps what failed, where, and the error, the newest 200', async () => {
    const before = logEntries().length;
    logFailure('outbox', 'store put', new TypeError('quota'));
    await Promise.reject(new Error('gone')).catch(logged('drafts', 'write'));
    const last = logEntries().slice(before);
    expect(last.map(({ scope, what, error }) => [scope, what, error])).toEqual([
      ['outbox', 'store put', 'TypeError: quota'],
      ['drafts', 'write', 'Error: gone'],
    ]);
    for (let i = 0; i < 250; i++) logFailure('x', `step ${i}`, 'no');
    expect(logEntries()).toHaveLength(200);
    expect(logEntries().at(-1)?.what).toBe('step 249');
  });
});

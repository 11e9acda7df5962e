import { describe, expect, it } from 'vitest';
import { legacyStatusText } from './legacy-status';

describe('legacyStatusText', () => {
  it('says how far the sweep got, and what waits', () => {
    expect(legacyStatusText({ total: 1200, done: 300, waiting: 0, running: true })).toBe(
      'Encrypting your earlier messages… 300 of 1,200',
    );
    expect(legacyStatusText({ total: 2, done: 2, waiting: 0, running: false })).toBe(
      'Your earlier messages are end-to-end encrypted now (2).',
    );
    expect(legacyStatusText({ total: 3, done: 2, waiting: 1, running: false })).toBe(
      '2 of your earlier messages are end-to-end encrypted now. 1 earlier message waits until the people you sent them to set up encryption.',
    );
    // Pages opened meanwhile (a locked chat's) may add to what was done: never more than the total.
    expect(legacyStatusText({ total: 2, done: 5, waiting: 0, running: true })).toBe(
      'Encrypting your earlier messages… 2 of 2',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { backoffDelay } from './chat-socket';

describe('backoffDelay', () => {
  it('starts at 0.5 s and doubles up to 15 s, with jitter in the upper half', () => {
    const low = () => 0;
    const high = () => 1;
    expect([0, 1, 2, 3, 4, 5, 6, 10].map((n) => backoffDelay(n, high))).toEqual([
      500, 1000, 2000, 4000, 8000, 15000, 15000, 15000,
    ]);
    expect(backoffDelay(0, low)).toBe(250);
    expect(backoffDelay(10, low)).toBe(7500);
  });
});

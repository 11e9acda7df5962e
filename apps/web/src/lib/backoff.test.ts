import { describe, expect, it } from 'vitest';
import { withJitter } from './backoff';

describe('withJitter', () => {
  it('waits between half the ceiling and the ceiling', () => {
    expect(withJitter(1000, () => 0)).toBe(500);
    expect(withJitter(1000, () => 1)).toBe(1000);
    for (let i = 0; i < 100; i++) {
      const w = withJitter(30_000);
      expect(w).toBeGreaterThanOrEqual(15_000);
      expect(w).toBeLessThanOrEqual(30_000);
    }
  });

  it('spreads the waits of clients retrying together', () => {
    const waits = new Set(Array.from({ length: 50 }, () => withJitter(8000)));
    expect(waits.size).toBeGreaterThan(10);
  });
});

import { describe, expect, it } from 'vitest';
import { byteRange } from './byte-range.ts';

describe('byteRange', () => {
  it('reads the one range of a Range header', () => {
    expect(byteRange(undefined, 100)).toEqual({ start: 0, end: 99, partial: false });
    expect(byteRange('bytes=10-19', 100)).toEqual({ start: 10, end: 19, partial: true });
    expect(byteRange('bytes=90-', 100)).toEqual({ start: 90, end: 99, partial: true });
    expect(byteRange('bytes=-5', 100)).toEqual({ start: 95, end: 99, partial: true });
    expect(byteRange('bytes=-500', 100)).toEqual({ start: 0, end: 99, partial: true });
    expect(byteRange('bytes=50-5000', 100)).toEqual({ start: 50, end: 99, partial: true });
  });

  it('serves the whole blob for what it does not take, and refuses a start past the end', () => {
    for (const h of ['bytes=0-1,5-6', 'items=0-5', 'bytes=-', 'bytes=9-3', 'nonsense']) {
      expect(byteRange(h, 100), h).toEqual({ start: 0, end: 99, partial: false });
    }
    expect(byteRange('bytes=100-', 100)).toBe('unsatisfiable');
    expect(byteRange('bytes=-0', 100)).toBe('unsatisfiable');
  });
});

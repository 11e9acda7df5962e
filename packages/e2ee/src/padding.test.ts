import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromBase64Url, toBase64Url } from './bytes.ts';
import { PAD_MIN, pad, padmeLength, unpad } from './padding.ts';

describe('Padmé padding', () => {
  it('grows a length by at most 12 % and never shrinks it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 1 << 20 }), (n) => {
        const p = padmeLength(n);
        return p >= n && p <= n * 1.12 + 1;
      }),
    );
  });

  it('pads to at least PAD_MIN and unpads to the same bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), (data) => {
        const padded = pad(data);
        expect(padded.length).toBeGreaterThanOrEqual(PAD_MIN);
        expect(padded.length).toBe(Math.max(PAD_MIN, padmeLength(data.length + 1)));
        expect(unpad(padded)).toEqual(data);
      }),
    );
  });

  it('refuses padding that is not 0x80 then zeros', () => {
    expect(() => unpad(new Uint8Array(32))).toThrow();
    expect(() => unpad(new Uint8Array([1, 2, 0x81, 0]))).toThrow();
  });
});

describe('base64url', () => {
  it('round-trips any bytes and refuses non-canonical text', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (d) => {
        expect(fromBase64Url(toBase64Url(d))).toEqual(d);
      }),
    );
    for (const bad of ['A', 'AB=', 'A+B/', 'ab c', 'AF']) expect(() => fromBase64Url(bad)).toThrow();
  });
});

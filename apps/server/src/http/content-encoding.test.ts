import { describe, expect, it } from 'vitest';
import { isCompressibleType, negotiateEncoding, varyOnAcceptEncoding } from './content-encoding.ts';

describe('negotiateEncoding', () => {
  const cases: [string | undefined, 'br' | 'gzip' | null][] = [
    [undefined, null],
    ['', null],
    ['identity', null],
    ['gzip, deflate, br, zstd', 'br'], // a browser's header: br before gzip at equal weight
    ['br', 'br'],
    ['gzip', 'gzip'],
    ['GZip, deflate', 'gzip'],
    ['x-gzip', 'gzip'],
    ['deflate, zstd', null],
    ['br;q=0, gzip;q=0', null],
    ['br;q=0, gzip', 'gzip'],
    ['br;q=0.5, gzip;q=0.8', 'gzip'], // the higher weight wins over our preference
    ['br;q=0.8, gzip;q=0.8', 'br'],
    ['gzip;q=1.0, br;q=0.999', 'gzip'],
    ['br ; q=0.001', 'br'],
    ['*', 'br'],
    ['*;q=0', null],
    ['gzip;q=0, *', 'br'], // * covers only what the header does not name
    ['br;q=0, *', 'gzip'],
    ['br;q=0, *;q=0.5', 'gzip'],
    ['identity;q=1, *;q=0', null],
    // A malformed weight refuses its coding rather than guessing.
    ['br;q=2, gzip;q=0.1', 'gzip'],
    ['br;q=abc, gzip;q=0.1', 'gzip'],
    ['br;q=0.1234, gzip;q=0.1', 'gzip'],
    ['br;level=5', 'br'], // a parameter other than q leaves the weight at 1
    [' , ,gzip', 'gzip'],
  ];
  for (const [header, expected] of cases) {
    it(`${JSON.stringify(header)} → ${expected ?? 'identity'}`, () => {
      expect(negotiateEncoding(header)).toBe(expected);
    });
  }

  it('picks only among the codings offered', () => {
    expect(negotiateEncoding('br, gzip', ['gzip'])).toBe('gzip');
    expect(negotiateEncoding('br', ['gzip'])).toBeNull();
    expect(negotiateEncoding('*', [])).toBeNull();
  });

  it('reads a header sent several times as one list, the first weight of a name counting', () => {
    expect(negotiateEncoding(['br;q=0', 'gzip'])).toBe('gzip');
    expect(negotiateEncoding('br;q=0, br, gzip;q=0.5')).toBe('gzip');
  });
});

describe('isCompressibleType', () => {
  it('takes JSON, text and scripts, not images or binary', () => {
    for (const t of [
      'application/json; charset=utf-8',
      'application/problem+json',
      'text/html; charset=utf-8',
      'text/css',
      'application/javascript',
      'image/svg+xml',
    ]) {
      expect(isCompressibleType(t), t).toBe(true);
    }
    for (const t of ['image/png', 'application/octet-stream', 'font/woff2', 'application/x-brotli', '']) {
      expect(isCompressibleType(t), t).toBe(false);
    }
  });
});

describe('varyOnAcceptEncoding', () => {
  it('adds Accept-Encoding once', () => {
    expect(varyOnAcceptEncoding(undefined)).toBe('accept-encoding');
    expect(varyOnAcceptEncoding('Origin')).toBe('Origin, accept-encoding');
    expect(varyOnAcceptEncoding('Origin, Accept-Encoding')).toBe('Origin, Accept-Encoding');
    expect(varyOnAcceptEncoding(['Origin', 'Cookie'])).toBe('Origin, Cookie, accept-encoding');
    expect(varyOnAcceptEncoding('*')).toBe('*');
  });
});

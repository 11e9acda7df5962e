import { describe, expect, it } from 'vitest';
import { describeUnknown, unknownVariables } from './config-check.ts';

describe('unknown variables', () => {
  it('names misspelled settings and Parley-looking ones, and leaves everything else alone', () => {
    const found = unknownVariables({
      DATABSE_URL: 'postgres://x',
      REDIS_URI: 'redis://x',
      PARLEY_PORT: '3000',
      S3_BUKET: 'b',
      DATABASE_URL: 'postgres://y',
      PATH: '/usr/bin',
      HOME: '/root',
      NODE_ENV: 'production',
      LANG: 'C.UTF-8',
    });
    expect(found).toEqual([
      { name: 'DATABSE_URL', meant: 'DATABASE_URL' },
      { name: 'PARLEY_PORT', meant: null },
      { name: 'REDIS_URI', meant: 'REDIS_URL' },
      { name: 'S3_BUKET', meant: 'S3_BUCKET' },
    ]);
    expect(describeUnknown(found[0] as never)).toBe(
      'DATABSE_URL is not a Parley setting: did you mean DATABASE_URL? It is ignored.',
    );
  });

  it('finds nothing in the environment the tests run in, but what is unknown', () => {
    // Every CI variable (CI, TEST_DATABASE_URL…) is far from every setting, or named here.
    const found = unknownVariables({ CI: 'true', TEST_DATABASE_URL: 'postgres://', TEST_REDIS_URL: 'redis://' });
    expect(found).toEqual([]);
  });
});

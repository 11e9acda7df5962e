import { describe, expect, it } from 'vitest';
import { KDF_DEFAULT } from './kdf.ts';
import { KDF_FLOOR_LOG2, kdfAcceptable } from './kdf-floor.ts';

describe('the KDF floor', () => {
  it('is OWASP’s scrypt minimum outside a test build, and the default meets it', () => {
    expect(KDF_FLOOR_LOG2).toBe(17);
    expect(kdfAcceptable(KDF_DEFAULT)).toBe(true);
    expect(kdfAcceptable({ alg: 'scrypt', N: 2 ** 18, r: 8, p: 1 })).toBe(true);
  });

  it('refuses a lower N or r, and a cost that would take over a GiB or many lanes', () => {
    expect(kdfAcceptable({ alg: 'scrypt', N: 2 ** 16, r: 8, p: 1 })).toBe(false);
    expect(kdfAcceptable({ alg: 'scrypt', N: 2 ** 10, r: 8, p: 1 })).toBe(false);
    expect(kdfAcceptable({ alg: 'scrypt', N: 2 ** 17, r: 1, p: 1 })).toBe(false);
    expect(kdfAcceptable({ alg: 'scrypt', N: 2 ** 17, r: 7, p: 4 })).toBe(false);
    expect(kdfAcceptable({ alg: 'scrypt', N: 2 ** 20, r: 16, p: 1 })).toBe(false);
    expect(kdfAcceptable({ alg: 'scrypt', N: 2 ** 17, r: 8, p: 0 })).toBe(false);
    expect(kdfAcceptable({ alg: 'scrypt', N: 2 ** 17, r: 8, p: 64 })).toBe(false);
  });

  it('takes a lower floor only as a parameter (the test build’s constant)', () => {
    expect(kdfAcceptable({ alg: 'scrypt', N: 2 ** 10, r: 8, p: 1 }, 10)).toBe(true);
    expect(kdfAcceptable({ alg: 'scrypt', N: 2 ** 9, r: 8, p: 1 }, 10)).toBe(false);
  });
});

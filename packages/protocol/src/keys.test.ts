/** The wire shapes of end-to-end encryption's accounts (keys.ts): what the server can check without the password. */
import { describe, expect, it } from 'vitest';
import {
  authSchema,
  changePasswordRequestSchema,
  kdfParamsSchema,
  preloginSchema,
  putKeysSchema,
  signInRequestSchema,
  signUpRequestSchema,
  upgradeAuthSchema,
} from './keys.ts';
import { MSG } from './messages.ts';
import { SAMPLE_AUTH, SAMPLE_BODIES, SAMPLE_BUNDLE, SAMPLE_CREDENTIALS, SAMPLE_KEYS } from './test/samples.ts';

const sample = (name: string) => SAMPLE_BODIES.find((b) => b.name === name)?.value as Record<string, unknown>;

describe('end-to-end encryption wire schemas', () => {
  it('`auth` is exactly 32 bytes of base64url', () => {
    expect(authSchema.safeParse(SAMPLE_AUTH).success).toBe(true);
    for (const bad of ['', 'secret123', SAMPLE_AUTH.slice(1), `${SAMPLE_AUTH}A`, `${SAMPLE_AUTH.slice(1)}/`, 42]) {
      expect(authSchema.safeParse(bad).error?.issues[0]?.message, String(bad)).toBe(MSG.invalidCredentials);
    }
  });

  it('scrypt parameters: N a power of two from 2^10 to 2^20, r 1–16, p 1–4, nothing else', () => {
    expect(kdfParamsSchema.safeParse({ alg: 'scrypt', N: 2 ** 10, r: 8, p: 1 }).success).toBe(true);
    expect(kdfParamsSchema.safeParse({ alg: 'scrypt', N: 2 ** 20, r: 16, p: 4 }).success).toBe(true);
    for (const bad of [
      { alg: 'scrypt', N: 2 ** 9, r: 8, p: 1 },
      { alg: 'scrypt', N: 2 ** 21, r: 8, p: 1 },
      { alg: 'scrypt', N: 3000, r: 8, p: 1 },
      { alg: 'scrypt', N: 2 ** 10, r: 0, p: 1 },
      { alg: 'scrypt', N: 2 ** 10, r: 8, p: 5 },
      { alg: 'argon2id', N: 2 ** 10, r: 8, p: 1 },
      { alg: 'legacy' },
      { alg: 'scrypt', N: 2 ** 10, r: 8, p: 1, dkLen: 64 },
    ]) {
      expect(kdfParamsSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it('no body but a legacy sign-in or upgrade carries the password', () => {
    expect(signUpRequestSchema.safeParse({ ...sample('signUp'), password: 'secret123' }).success).toBe(false);
    expect(changePasswordRequestSchema.safeParse({ ...sample('changePassword'), newPassword: 'x' }).success).toBe(
      false,
    );
    expect(signInRequestSchema.safeParse({ login: 'ada', auth: SAMPLE_AUTH }).success).toBe(true);
    expect(signInRequestSchema.safeParse({ login: 'ada', password: 'secret123' }).success).toBe(true);
  });

  it('the login and the legacy password follow the sign-in form’s rules and the text policy', () => {
    expect(preloginSchema.safeParse({ login: '  ada@example.com ' }).data).toEqual({ login: 'ada@example.com' });
    for (const login of ['', '   ', 'a\u0000b', 'x\uD800', 'x'.repeat(255)]) {
      expect(preloginSchema.safeParse({ login }).success, JSON.stringify(login)).toBe(false);
    }
    for (const password of ['', 'a\u0000b', 'x\uDC00', 'x'.repeat(513)]) {
      expect(signInRequestSchema.safeParse({ login: 'ada', password }).success, JSON.stringify(password)).toBe(false);
      expect(upgradeAuthSchema.safeParse({ ...sample('upgradeAuth'), password }).success).toBe(false);
    }
  });

  it('a bundle version fits the database column (and the bundle’s u32)', () => {
    const put = { bundle: SAMPLE_BUNDLE, keys: SAMPLE_KEYS };
    const change = { auth: SAMPLE_AUTH, credentials: SAMPLE_CREDENTIALS, bundle: SAMPLE_BUNDLE };
    expect(putKeysSchema.safeParse({ ...put, bundleVersion: 2 ** 31 - 1 }).success).toBe(true);
    expect(changePasswordRequestSchema.safeParse({ ...change, bundleVersion: 2 ** 31 - 1 }).success).toBe(true);
    for (const bundleVersion of [0, 1.5, 2 ** 31, Number.MAX_SAFE_INTEGER]) {
      expect(putKeysSchema.safeParse({ ...put, bundleVersion }).success, String(bundleVersion)).toBe(false);
    }
    // A change always moves to a new version: at least 2.
    for (const bundleVersion of [1, 2 ** 31]) {
      expect(changePasswordRequestSchema.safeParse({ ...change, bundleVersion }).success).toBe(false);
    }
  });
});

/** The spec section 5 schemas: boundaries, messages, and properties. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MSG } from './messages.ts';
import {
  ageSchema,
  changeEmailSchema,
  changePasswordSchema,
  emailSchema,
  isSafeHttpUrl,
  nameSchema,
  passwordSchema,
  phoneSchema,
  signInSchema,
  signUpSchema,
  usernameSchema,
} from './validation.ts';

type Schema = { safeParse(v: unknown): { success: boolean; error?: { issues: { message: string }[] } } };

function ok(schema: Schema, value: unknown): void {
  const r = schema.safeParse(value);
  expect(r.success, `${JSON.stringify(value)}: ${r.error?.issues[0]?.message}`).toBe(true);
}

function bad(schema: Schema, value: unknown, message: string): void {
  const r = schema.safeParse(value);
  expect(r.success, JSON.stringify(value)).toBe(false);
  expect(r.error?.issues[0]?.message).toBe(message);
}

describe('boundaries', () => {
  it('name: 2 to 50 characters, trimmed', () => {
    bad(nameSchema, 'a', MSG.name);
    bad(nameSchema, '  a  ', MSG.name);
    bad(nameSchema, '', MSG.name);
    ok(nameSchema, 'ab');
    ok(nameSchema, 'x'.repeat(50));
    bad(nameSchema, 'x'.repeat(51), MSG.nameMax);
    bad(nameSchema, 42, MSG.name);
    expect(nameSchema.parse('  Ann Lee  ')).toBe('Ann Lee');
    expect(nameSchema.safeParse('Ann\u0000Lee').success).toBe(false);
  });

  it('phone: 10 to 15 characters', () => {
    bad(phoneSchema, '123456789', MSG.phone);
    ok(phoneSchema, '1234567890');
    ok(phoneSchema, '123456789012345');
    bad(phoneSchema, '1234567890123456', MSG.phone);
    ok(phoneSchema, '+1 (555) 123-45');
    bad(phoneSchema, 'abcdefghij', MSG.phone);
    bad(phoneSchema, 5551234567, MSG.phone);
  });

  it('age: a whole number from 13 to 120', () => {
    for (const v of [13, 30, 120]) ok(ageSchema, v);
    for (const v of [12, 121, 30.5, '30', Number.NaN, Number.POSITIVE_INFINITY, null, -1]) bad(ageSchema, v, MSG.age);
  });

  it('username: 3 to 20 letters, digits and underscores', () => {
    bad(usernameSchema, 'ab', MSG.username);
    ok(usernameSchema, 'abc');
    ok(usernameSchema, 'a'.repeat(20));
    bad(usernameSchema, 'a'.repeat(21), MSG.usernameMax);
    bad(usernameSchema, 'bad-name!', MSG.usernameChars);
    bad(usernameSchema, 'has space', MSG.usernameChars);
    bad(usernameSchema, 'émile', MSG.usernameChars);
  });

  it('password: at least 6 characters, never trimmed', () => {
    bad(passwordSchema, '12345', MSG.password);
    ok(passwordSchema, '123456');
    ok(passwordSchema, 'x'.repeat(128));
    bad(passwordSchema, 'x'.repeat(129), MSG.passwordMax);
    expect(passwordSchema.parse('  pass  ')).toBe('  pass  ');
  });

  it('email', () => {
    ok(emailSchema, 'a@example.com');
    expect(emailSchema.parse('  a@example.com ')).toBe('a@example.com');
    for (const v of ['nope', 'a@', '@example.com', 'a b@example.com', `${'a'.repeat(250)}@example.com`]) {
      bad(emailSchema, v, MSG.email);
    }
  });
});

describe('forms', () => {
  const valid = {
    name: 'Ann Lee',
    phone: '5551234567',
    age: 30,
    username: 'ann_lee',
    email: 'ann@example.com',
    password: 'secret123',
    agree: true,
  };

  it('sign-up: the terms must be agreed; unknown fields refused', () => {
    ok(signUpSchema, valid);
    bad(signUpSchema, { ...valid, agree: false }, MSG.agreement);
    const { agree: _, ...noAgree } = valid;
    bad(signUpSchema, noAgree, MSG.agreement);
    const extra = signUpSchema.safeParse({ ...valid, isAdmin: true });
    expect(extra.success).toBe(false);
    expect(extra.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['isAdmin'] });
  });

  it("sign-in, change e-mail, change password: 'Please fill in all fields'", () => {
    bad(signInSchema, { login: '', password: 'x' }, MSG.fillAll);
    bad(signInSchema, { login: 'ann', password: '' }, MSG.fillAll);
    expect(signInSchema.parse({ login: ' ann ', password: 'x' })).toEqual({
      login: 'ann',
      password: 'x',
      remember: true,
    });
    bad(changeEmailSchema, { newEmail: '', currentPassword: 'x' }, MSG.fillAll);
    bad(changeEmailSchema, { newEmail: 'a@example.com', currentPassword: '' }, MSG.fillAll);
    bad(changePasswordSchema, { currentPassword: '', newPassword: 'secret123' }, MSG.fillAll);
    bad(changePasswordSchema, { currentPassword: 'x', newPassword: '' }, MSG.fillAll);
    bad(changePasswordSchema, { currentPassword: 'x', newPassword: '12345' }, MSG.password);
  });
});

describe('properties', () => {
  const allowed = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_');
  const oneChar = fc.string({ unit: 'binary', minLength: 1, maxLength: 1 });
  const notAllowed = fc.oneof(oneChar, fc.constantFrom('-', '!', ' ', '@', '.', "'", ';', '<', 'é', '\u0000', '😀'));

  it('any string of only [A-Za-z0-9_] with length 3..20 is a valid username, kept as is', () => {
    fc.assert(
      fc.property(fc.string({ unit: allowed, minLength: 3, maxLength: 20 }), (name) => {
        const r = usernameSchema.safeParse(name);
        return r.success && r.data === name;
      }),
    );
  });

  it('a username containing any other character is refused with the characters message', () => {
    const word = (max: number) => fc.string({ unit: allowed, minLength: 1, maxLength: max });
    fc.assert(
      fc.property(
        word(9),
        notAllowed.filter((c) => !/^[A-Za-z0-9_]$/.test(c)),
        word(9),
        (pre, c, post) => {
          // The odd character sits inside, so trimming cannot remove it; the length stays within 3..20.
          const r = usernameSchema.safeParse(pre + c + post);
          return !r.success && r.error.issues[0]?.message === MSG.usernameChars;
        },
      ),
    );
  });

  it('leading and trailing spaces are trimmed, not refused', () => {
    expect(usernameSchema.parse('  alice  ')).toBe('alice');
  });

  it('ages: every whole number in 13..120 passes, everything else fails', () => {
    fc.assert(fc.property(fc.integer({ min: 13, max: 120 }), (n) => ageSchema.safeParse(n).success));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ max: 12 }),
          fc.integer({ min: 121 }),
          fc.double().filter((d) => !Number.isInteger(d)),
        ),
        (n) => !ageSchema.safeParse(n).success,
      ),
    );
  });
});

describe('isSafeHttpUrl', () => {
  it('accepts http and https', () => {
    for (const u of ['http://example.com', 'https://example.com/path?q=1#x', 'HTTPS://EXAMPLE.COM']) {
      expect(isSafeHttpUrl(u), u).toBe(true);
    }
  });

  it('refuses every other scheme and non-URLs', () => {
    for (const u of [
      'javascript:alert(1)',
      ' javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'java\tscript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'file:///etc/passwd',
      'ftp://example.com',
      '//example.com',
      '/relative',
      'not a url',
      '',
      'http://',
    ]) {
      expect(isSafeHttpUrl(u), JSON.stringify(u)).toBe(false);
    }
  });

  it('property: whatever the URL, a true answer means an http(s) URL with a host', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.webUrl(),
          fc.string(),
          fc.constantFrom('javascript:', 'data:', 'file:', 'vbscript:').chain((s) => fc.string().map((r) => s + r)),
        ),
        (u) => {
          if (!isSafeHttpUrl(u)) return true;
          const url = new URL(u);
          return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
        },
      ),
    );
    fc.assert(fc.property(fc.webUrl(), (u) => isSafeHttpUrl(u)));
  });
});

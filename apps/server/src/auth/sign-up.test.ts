/** Sign-up against a real server: spec section 5 rules, taken handles, hostile input, limits. */
import { MSG, signUpSchema } from '@app/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '../config.ts';
import { credentialsFor, randomAuth, TEST_KDF } from '../test/accounts.ts';
import {
  expectError,
  LOOSE_LIMITS,
  newUserInput,
  signInWith,
  signUpBody,
  startTestServer,
  type TestServer,
} from '../test/harness.ts';

const SIGNUP = '/api/auth/signup';
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({
    config: { rateLimits: LOOSE_LIMITS },
  });
});
afterAll(async () => {
  await t?.close();
});

const count = () => t.server.ctx.store.countUsers();

/** The body a browser sends for a new user with `overrides`: `credentials`, no password. */
async function body(overrides: Record<string, unknown> = {}) {
  return (await signUpBody(newUserInput(overrides))).body;
}

/** Posts a body and asserts it is refused and no account appeared. */
async function refused(body: unknown, status: number, error: string, init: RequestInit = {}) {
  const before = await count();
  const res = await t.client().request('POST', SIGNUP, body, init);
  expectError(res, status, error);
  expect(await count()).toBe(before);
  return res;
}

describe('spec section 5 rules, with their exact messages', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['name of 1 character', { name: 'A' }, MSG.name],
    ['name of 1 character after trimming', { name: '  A  ' }, MSG.name],
    ['name of 51 characters', { name: 'n'.repeat(51) }, MSG.nameMax],
    ['phone of 9 characters', { phone: '555123456' }, MSG.phone],
    ['phone of 16 characters', { phone: '5551234567890123' }, MSG.phone],
    ['phone with letters', { phone: '555-CALL-NOW' }, MSG.phone],
    ['age 12', { age: 12 }, MSG.age],
    ['age 121', { age: 121 }, MSG.age],
    ['age 30.5', { age: 30.5 }, MSG.age],
    ['age "30" as a string', { age: '30' }, MSG.age],
    ['username of 2 characters', { username: 'ab' }, MSG.username],
    ['username of 21 characters', { username: 'u'.repeat(21) }, MSG.usernameMax],
    ['username with other characters', { username: 'bad-name!' }, MSG.usernameChars],
    ['email "nope"', { email: 'nope' }, MSG.email],
    ['agree false', { agree: false }, MSG.agreement],
    ['agree missing', { agree: undefined }, MSG.agreement],
  ];
  for (const [label, override, message] of cases) {
    it(`refuses ${label}: '${message}'`, async () => {
      const res = await refused(await body(override), 400, 'invalid_input');
      expect(res.body.message).toBe(message);
      // The form applies the same rule before anything is sent.
      expect(signUpSchema.safeParse(newUserInput(override)).error?.issues[0]?.message).toBe(message);
    });
  }

  it("the password's rules are the form's (the server never sees it): 6 to 128 characters", () => {
    const message = (password: unknown) => signUpSchema.safeParse(newUserInput({ password })).error?.issues[0]?.message;
    expect(message('12345')).toBe(MSG.password);
    expect(message('')).toBe(MSG.password);
    expect(message(undefined)).toBe(MSG.password);
    expect(message('x'.repeat(129))).toBe(MSG.passwordMax);
    expect(message('123456')).toBeUndefined();
    expect(message('x'.repeat(128))).toBeUndefined();
  });

  it('refuses the password itself, and credentials that are missing, malformed or derived too cheaply', async () => {
    const good = await body();
    const c = good.credentials;
    const cases: [string, unknown, string | undefined][] = [
      ['the password in clear', { ...good, password: 'secret123' }, 'Unknown field: password'],
      ['no credentials', { ...good, credentials: undefined }, undefined],
      ['credentials as a string', { ...good, credentials: 'secret123' }, undefined],
      ['auth missing', { ...good, credentials: { ...c, auth: undefined } }, MSG.invalidCredentials],
      ['auth as the password', { ...good, credentials: { ...c, auth: 'secret123' } }, MSG.invalidCredentials],
      ['auth of 42 characters', { ...good, credentials: { ...c, auth: c.auth.slice(1) } }, MSG.invalidCredentials],
      ['auth of 44 characters', { ...good, credentials: { ...c, auth: `${c.auth}A` } }, MSG.invalidCredentials],
      ['auth in base64', { ...good, credentials: { ...c, auth: `${c.auth.slice(1)}+` } }, MSG.invalidCredentials],
      ['a salt of 8 bytes', { ...good, credentials: { ...c, salt: 'AAAAAAAAAAA' } }, 'Invalid salt'],
      ['a salt with padding', { ...good, credentials: { ...c, salt: `${c.salt}==` } }, 'Invalid salt'],
      ['another KDF', { ...good, credentials: { ...c, kdf: { ...c.kdf, alg: 'pbkdf2' } } }, undefined],
      ['the legacy KDF', { ...good, credentials: { ...c, kdf: { alg: 'legacy' } } }, undefined],
      ['N not a power of two', { ...good, credentials: { ...c, kdf: { ...c.kdf, N: 1500 } } }, undefined],
      ['N of 2^9', { ...good, credentials: { ...c, kdf: { ...c.kdf, N: 2 ** 9 } } }, undefined],
      ['N of 2^21', { ...good, credentials: { ...c, kdf: { ...c.kdf, N: 2 ** 21 } } }, undefined],
      ['p of 5', { ...good, credentials: { ...c, kdf: { ...c.kdf, p: 5 } } }, undefined],
      ['an extra KDF field', { ...good, credentials: { ...c, kdf: { ...c.kdf, dkLen: 16 } } }, 'Unknown field: dkLen'],
      ['an extra credentials field', { ...good, credentials: { ...c, wrapKey: c.auth } }, 'Unknown field: wrapKey'],
    ];
    for (const [label, b, message] of cases) {
      const res = await refused(b, 400, 'invalid_input');
      if (message !== undefined) expect(res.body.message, label).toBe(message);
    }
    const weak = await credentialsFor('secret123', { ...TEST_KDF, r: 4 });
    const res = await refused({ ...good, credentials: weak.credentials }, 400, 'invalid_input');
    expect(res.body.message).toBe('The password was derived with parameters too weak for this server');
    // The same body, well formed, is accepted.
    expect((await t.client().post(SIGNUP, good)).status).toBe(201);
  });

  it('accepts the boundaries: name 2 and 50, phone 10 and 15, age 13 and 120, username 3 and 20, password 6', async () => {
    const tag = Date.now().toString(36).slice(-6);
    const inputs = [
      newUserInput({ name: 'Al', phone: '5551234567', age: 13, username: `a${tag}`.slice(0, 3), password: '123456' }),
      newUserInput({ name: 'N'.repeat(50), phone: '+55512345678901', age: 120, username: `z_${tag}`.padEnd(20, '9') }),
    ];
    for (const input of inputs) {
      expect(signUpSchema.safeParse(input).success).toBe(true);
      const res = await t.client().post(SIGNUP, (await signUpBody(input)).body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.user).toMatchObject({
        name: input.name,
        phone: input.phone,
        age: input.age,
        username: input.username,
      });
      // The 6-character password is the one that signs in.
      expect((await signInWith(t.client(), input.email, input.password)).status).toBe(200);
    }
  });
});

describe('taken handles and e-mails', () => {
  it("'Username Taken' when the handle exists in another case", async () => {
    const first = newUserInput();
    const handle = `al_${first.username.slice(-8)}`.toLowerCase();
    expect((await t.client().post(SIGNUP, (await signUpBody({ ...first, username: handle })).body)).status).toBe(201);
    const res = await refused(await body({ username: handle.toUpperCase() }), 409, 'username_taken');
    expect(res.body.message).toBe(MSG.usernameTaken);
    expect(res.body.message).toBe('This username is already in use');
  });

  it('e-mail taken in another case → 409 email_taken', async () => {
    const first = newUserInput();
    expect((await t.client().post(SIGNUP, (await signUpBody(first)).body)).status).toBe(201);
    const res = await refused(await body({ email: first.email.toUpperCase() }), 409, 'email_taken');
    expect(res.body.message).toBe(MSG.emailTaken);
  });
});

describe('a successful sign-up', () => {
  it('201, online, verification mail, HttpOnly SameSite=Lax session cookie', async () => {
    const input = newUserInput();
    const client = t.client();
    const res = await client.post(SIGNUP, (await signUpBody(input)).body);
    expect(res.status).toBe(201);
    // No keys yet: the browser makes them now that the account has its id (PUT /api/me/keys).
    expect(res.body.keys).toBeNull();
    expect(res.body.user).toMatchObject({
      username: input.username,
      email: input.email,
      name: input.name,
      emailVerified: false,
      isAdmin: false,
    });
    expect(JSON.stringify(res.body)).not.toMatch(/password|hash/i);

    const stored = await t.server.ctx.store.userById(res.body.user.id);
    expect(stored?.status).toBe('online');

    const mail = await t.mailTo(input.email, /Verify/);
    expect(mail.links.some((l) => l.includes('/verify-email?token='))).toBe(true);

    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('sid='));
    expect(cookie).toBeDefined();
    expect(cookie).toMatch(/;\s*HttpOnly/i);
    expect(cookie).toMatch(/;\s*SameSite=Lax/i);
    expect(cookie).toMatch(/;\s*Path=\//i);

    const session = await client.get('/api/session');
    expect(session.body.user.id).toBe(res.body.user.id);
  });
});

describe('bad input changes nothing', () => {
  it('a body over 16 KiB → 413 payload_too_large', async () => {
    const res = await refused(await body({ name: 'x'.repeat(17 * 1024) }), 413, 'payload_too_large');
    expect(res.body.message).toBeTypeOf('string');
  });

  it('malformed JSON → 400', async () => {
    await refused('{"name": "Test", ', 400, 'invalid_input');
    await refused('not json at all', 400, 'invalid_input');
    await refused('', 400, 'invalid_input');
  });

  it('a JSON body that is not an object → 400', async () => {
    for (const body of ['[]', 'null', '42', '"text"']) await refused(body, 400, 'invalid_input');
  });

  it('prototype-pollution keys → 400', async () => {
    const base = JSON.stringify(await body()).slice(0, -1);
    await refused(`${base},"__proto__":{"isAdmin":true}}`, 400, 'invalid_input');
    await refused(`${base},"constructor":{"prototype":{"isAdmin":true}}}`, 400, 'invalid_input');
  });

  const wrongTypes: [string, unknown][] = [
    ['name', ['Test', 'User']],
    ['name', { first: 'Test' }],
    ['name', 12345],
    ['phone', 5551234567],
    ['phone', ['5551234567']],
    ['age', [30]],
    ['age', { value: 30 }],
    ['age', null],
    ['username', 12345],
    ['username', ['alice']],
    ['email', ['a@example.com']],
    ['email', { address: 'a@example.com' }],
    ['credentials', 123456],
    ['credentials', ['secret123']],
    ['credentials', null],
    ['agree', 'true'],
    ['agree', 1],
  ];
  for (const [field, value] of wrongTypes) {
    it(`wrong type in ${field}: ${JSON.stringify(value)} → 400`, async () => {
      await refused({ ...(await body()), [field]: value }, 400, 'invalid_input');
    });
  }
  const wrongCredentialTypes: [string, unknown][] = [
    ['auth', 12345],
    ['auth', ['x'.repeat(43)]],
    ['salt', 12345],
    ['kdf', 'scrypt'],
    ['kdf', { alg: 'scrypt', N: '1024', r: 8, p: 1 }],
    ['kdf', { alg: 'scrypt', N: 1024.5, r: 8, p: 1 }],
  ];
  for (const [field, value] of wrongCredentialTypes) {
    it(`wrong type in credentials.${field}: ${JSON.stringify(value)} → 400`, async () => {
      const good = await body();
      await refused({ ...good, credentials: { ...good.credentials, [field]: value } }, 400, 'invalid_input');
    });
  }

  it("an unknown extra field → 400 'Unknown field: ...'", async () => {
    const res = await refused(await body({ isAdmin: true }), 400, 'invalid_input');
    expect(res.body.message).toBe('Unknown field: isAdmin');
    const res2 = await refused(await body({ verified: true }), 400, 'invalid_input');
    expect(res2.body.message).toBe('Unknown field: verified');
  });

  it('text/plain, form and multipart content types → 415', async () => {
    const json = JSON.stringify(await body());
    for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded']) {
      await refused(json, 415, 'unsupported_media_type', { headers: { 'content-type': type } });
    }
    const form = new URLSearchParams(newUserInput() as unknown as Record<string, string>).toString();
    await refused(form, 415, 'unsupported_media_type', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    await refused('--b\r\n\r\nx\r\n--b--', 415, 'unsupported_media_type', {
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
    });
  });

  const SQL = "x'; DROP TABLE users;--";
  const hostile: [string, unknown][] = [
    ['username', SQL],
    ['username', "a' OR '1'='1"],
    ['username', '<script>alert(1)</script>'],
    ['username', 'bob<b>'],
    ['email', `${SQL}@example.com`],
    ['email', '<script>alert(1)</script>@example.com'],
    ['email', "a@example.com' OR 1=1--"],
    ['phone', `555123456${SQL}`.slice(0, 15)],
    ['phone', '<b>5551234567</b>'],
    ['age', '30; DROP TABLE users'],
    ['agree', "true'--"],
  ];
  for (const [field, value] of hostile) {
    it(`SQL/HTML payload in ${field} is refused: ${JSON.stringify(value)}`, async () => {
      await refused(await body({ [field]: value }), 400, 'invalid_input');
    });
  }

  it('SQL/HTML payloads in name and password are accepted and stored verbatim as text', async () => {
    const store = t.server.ctx.store;
    for (const payload of [
      '<script>alert(1)</script>',
      "Robert'); DROP TABLE users;--",
      '<img src=x onerror=alert(1)>',
    ]) {
      const before = await count();
      const input = newUserInput({ name: payload, password: "' OR '1'='1" });
      const res = await t.client().post(SIGNUP, (await signUpBody(input)).body);
      expect(res.status).toBe(201);
      expect(res.body.user.name).toBe(payload);
      expect(await count()).toBe(before + 1);
      expect((await store.userById(res.body.user.id))?.name).toBe(payload);
      // The password is a secret, not SQL: only the exact string signs in.
      expect((await signInWith(t.client(), input.email, "' OR '1'='1")).status).toBe(200);
      expect((await signInWith(t.client(), input.email, "' OR '1'='2")).status).toBe(401);
      // Nor is `auth`: a guess is only a guess.
      expect((await t.client().post('/api/auth/signin', { login: input.email, auth: randomAuth() })).status).toBe(401);
    }
  });
});

describe('per-IP sign-up limit', () => {
  let small: TestServer;
  beforeAll(async () => {
    small = await startTestServer({ config: { rateLimits: { ...DEFAULT_RATE_LIMITS, signUpPerIp: 2 } } });
  });
  afterAll(async () => {
    await small?.close();
  });

  it('the third sign-up from one IP → 429 rate_limited and no account', async () => {
    for (let i = 0; i < 2; i++) expect((await small.client().post(SIGNUP, await body())).status).toBe(201);
    const before = await small.server.ctx.store.countUsers();
    const res = await small.client().post(SIGNUP, await body());
    expectError(res, 429, 'rate_limited');
    // A spoofed X-Forwarded-For is not trusted (TRUST_PROXY is off).
    const spoofed = await small.client({ 'x-forwarded-for': '203.0.113.9' }).post(SIGNUP, await body());
    expectError(spoofed, 429, 'rate_limited');
    expect(await small.server.ctx.store.countUsers()).toBe(before);
  });

  it('refused input does not use up the allowance', async () => {
    const other = await startTestServer({ config: { rateLimits: { ...DEFAULT_RATE_LIMITS, signUpPerIp: 1 } } });
    try {
      const good = await body();
      const weak = { ...good, credentials: (await credentialsFor('secret123', { ...TEST_KDF, r: 4 })).credentials };
      for (const refusedBody of [await body({ age: 5 }), weak, { ...good, credentials: undefined }]) {
        expect((await other.client().post(SIGNUP, refusedBody)).status).toBe(400);
      }
      expect((await other.client().post(SIGNUP, good)).status).toBe(201);
    } finally {
      await other.close();
    }
  });
});

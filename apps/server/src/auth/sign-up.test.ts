/** Sign-up against a real server: spec section 5 rules, taken handles, hostile input, limits. */
import { MSG } from '@app/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '../config.ts';
import { expectError, LOOSE_LIMITS, newUserInput, startTestServer, type TestServer } from '../test/harness.ts';

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
    ['password of 5 characters', { password: '12345' }, MSG.password],
    ['agree false', { agree: false }, MSG.agreement],
    ['agree missing', { agree: undefined }, MSG.agreement],
  ];
  for (const [label, override, message] of cases) {
    it(`refuses ${label}: '${message}'`, async () => {
      const res = await refused(newUserInput(override), 400, 'invalid_input');
      expect(res.body.message).toBe(message);
    });
  }

  it('accepts the boundaries: name 2 and 50, phone 10 and 15, age 13 and 120, username 3 and 20, password 6', async () => {
    const tag = Date.now().toString(36).slice(-6);
    const bodies = [
      newUserInput({ name: 'Al', phone: '5551234567', age: 13, username: `a${tag}`.slice(0, 3), password: '123456' }),
      newUserInput({ name: 'N'.repeat(50), phone: '+55512345678901', age: 120, username: `z_${tag}`.padEnd(20, '9') }),
    ];
    for (const body of bodies) {
      const res = await t.client().post(SIGNUP, body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.user).toMatchObject({
        name: body.name,
        phone: body.phone,
        age: body.age,
        username: body.username,
      });
    }
  });
});

describe('taken handles and e-mails', () => {
  it("'Username Taken' when the handle exists in another case", async () => {
    const first = newUserInput();
    const handle = `al_${first.username.slice(-8)}`.toLowerCase();
    expect((await t.client().post(SIGNUP, { ...first, username: handle })).status).toBe(201);
    const res = await refused(newUserInput({ username: handle.toUpperCase() }), 409, 'username_taken');
    expect(res.body.message).toBe(MSG.usernameTaken);
    expect(res.body.message).toBe('This username is already in use');
  });

  it('e-mail taken in another case → 409 email_taken', async () => {
    const first = newUserInput();
    expect((await t.client().post(SIGNUP, first)).status).toBe(201);
    const res = await refused(newUserInput({ email: first.email.toUpperCase() }), 409, 'email_taken');
    expect(res.body.message).toBe(MSG.emailTaken);
  });
});

describe('a successful sign-up', () => {
  it('201, online, verification mail, HttpOnly SameSite=Lax session cookie', async () => {
    const input = newUserInput();
    const client = t.client();
    const res = await client.post(SIGNUP, input);
    expect(res.status).toBe(201);
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
    const res = await refused(newUserInput({ name: 'x'.repeat(17 * 1024) }), 413, 'payload_too_large');
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
    const base = JSON.stringify(newUserInput()).slice(0, -1);
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
    ['password', 123456],
    ['password', { p: 'secret123' }],
    ['agree', 'true'],
    ['agree', 1],
  ];
  for (const [field, value] of wrongTypes) {
    it(`wrong type in ${field}: ${JSON.stringify(value)} → 400`, async () => {
      await refused(newUserInput({ [field]: value }), 400, 'invalid_input');
    });
  }

  it("an unknown extra field → 400 'Unknown field: ...'", async () => {
    const res = await refused(newUserInput({ isAdmin: true }), 400, 'invalid_input');
    expect(res.body.message).toBe('Unknown field: isAdmin');
    const res2 = await refused(newUserInput({ verified: true }), 400, 'invalid_input');
    expect(res2.body.message).toBe('Unknown field: verified');
  });

  it('text/plain, form and multipart content types → 415', async () => {
    const json = JSON.stringify(newUserInput());
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
      await refused(newUserInput({ [field]: value }), 400, 'invalid_input');
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
      const res = await t.client().post(SIGNUP, input);
      expect(res.status).toBe(201);
      expect(res.body.user.name).toBe(payload);
      expect(await count()).toBe(before + 1);
      expect((await store.userById(res.body.user.id))?.name).toBe(payload);
      // The password is a secret, not SQL: only the exact string signs in.
      const ok = await t.client().post('/api/auth/signin', { login: input.email, password: "' OR '1'='1" });
      expect(ok.status).toBe(200);
      const no = await t.client().post('/api/auth/signin', { login: input.email, password: "' OR '1'='2" });
      expect(no.status).toBe(401);
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
    for (let i = 0; i < 2; i++) expect((await small.client().post(SIGNUP, newUserInput())).status).toBe(201);
    const before = await small.server.ctx.store.countUsers();
    const res = await small.client().post(SIGNUP, newUserInput());
    expectError(res, 429, 'rate_limited');
    // A spoofed X-Forwarded-For is not trusted (TRUST_PROXY is off).
    const spoofed = await small.client({ 'x-forwarded-for': '203.0.113.9' }).post(SIGNUP, newUserInput());
    expectError(spoofed, 429, 'rate_limited');
    expect(await small.server.ctx.store.countUsers()).toBe(before);
  });

  it('refused input does not use up the allowance', async () => {
    const other = await startTestServer({ config: { rateLimits: { ...DEFAULT_RATE_LIMITS, signUpPerIp: 1 } } });
    try {
      for (let i = 0; i < 3; i++)
        expect((await other.client().post(SIGNUP, newUserInput({ age: 5 }))).status).toBe(400);
      expect((await other.client().post(SIGNUP, newUserInput())).status).toBe(201);
    } finally {
      await other.close();
    }
  });
});

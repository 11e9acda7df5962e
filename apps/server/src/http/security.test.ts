/** Security headers and the basic HTTP surface of a real server. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestResponse, type TestServer } from '../test/harness.ts';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

function expectSecurityHeaders(res: TestResponse): void {
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("object-src 'none'");
  expect(csp).not.toContain('unsafe-eval');
  expect(csp.match(/script-src[^;]*/)?.[0]).not.toContain('unsafe-inline');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  // The camera for this origin only (Scan code), nothing else of the device's.
  expect(res.headers.get('permissions-policy')).toBe(
    'camera=(self), microphone=(self), geolocation=(), payment=(), usb=()',
  );
}

describe('security headers on every response', () => {
  const cases: [string, (t: TestServer) => Promise<TestResponse>][] = [
    ['an API route', (s) => s.client().get('/api/session')],
    ['/healthz', (s) => s.client().get('/healthz')],
    ['a 404 API path', (s) => s.client().get('/api/does-not-exist')],
    ['a 404 outside the API', (s) => s.client().get('/no/such/page')],
    ['a validation error', (s) => s.client().post('/api/auth/signin', {})],
    [
      'a refused content type',
      (s) => s.client().request('POST', '/api/auth/signin', 'x', { headers: { 'content-type': 'text/plain' } }),
    ],
    [
      'a cross-origin refusal',
      (s) => s.client().request('POST', '/api/auth/signout', {}, { headers: { origin: 'https://evil.example' } }),
    ],
    ['an unauthenticated protected route', (s) => s.client().post('/api/auth/resend-verification')],
  ];
  for (const [label, call] of cases) {
    it(label, async () => {
      expectSecurityHeaders(await call(t));
    });
  }
});

describe('basic routes', () => {
  it('/healthz → {ok:true}', async () => {
    const res = await t.client().get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true });
  });

  it('an unknown /api path → 404 JSON {error:"not_found"}, for any method', async () => {
    for (const [method, path] of [
      ['GET', '/api/nope'],
      ['POST', '/api/nope'],
      ['DELETE', '/api/users/1'],
      ['GET', '/api'],
    ] as const) {
      const res = await t.client().request(method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body).toMatchObject({ error: 'not_found' });
    }
  });

  it('GET /api/session with no cookie → {user:null}', async () => {
    const res = await t.client().get('/api/session');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ user: null });
  });

  it('errors never leak internals', async () => {
    const res = await t.client().request('POST', '/api/auth/signin', '{"login":', {});
    expect(res.status).toBe(400);
    expect(Object.keys(res.body).sort()).toEqual(['error', 'message']);
    expect(JSON.stringify(res.body)).not.toMatch(/stack|at \/|node_modules/);
  });
});

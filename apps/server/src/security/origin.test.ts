/**
 * With PUBLIC_URL set, the API and the WebSocket upgrade accept only its origin: a
 * request whose Origin merely matches its Host header (what a rebound DNS name sends) is
 * refused. Without it, the request's own host is accepted.
 */
import { describe, expect, it } from 'vitest';
import { randomAuth } from '../test/accounts.ts';
import { expectError, LOOSE_LIMITS, signUp, useTestServer } from '../test/harness.ts';
import { RawWsClient } from '../test/raw-ws.ts';
import { originCheck } from './origin.ts';

describe('originCheck', () => {
  it('with PUBLIC_URL: its origin only', () => {
    const ok = originCheck({
      publicUrl: 'https://chat.example.com/',
      publicUrlFromEnv: true,
      allowedOrigins: ['http://10.0.0.5:3001'],
    });
    expect(ok('https://chat.example.com', 'chat.example.com')).toBe(true);
    expect(ok('http://10.0.0.5:3001', 'rebound.example')).toBe(true);
    expect(ok('http://chat.example.com', 'chat.example.com')).toBe(false);
    expect(ok('http://rebound.example:3000', 'rebound.example:3000')).toBe(false);
  });

  it('without it: the default origin or the request’s own host', () => {
    const ok = originCheck({ publicUrl: 'http://localhost:3000', publicUrlFromEnv: false, allowedOrigins: [] });
    expect(ok('http://localhost:3000', '127.0.0.1:3000')).toBe(true);
    expect(ok('http://127.0.0.1:3000', '127.0.0.1:3000')).toBe(true);
    expect(ok('https://evil.example', '127.0.0.1:3000')).toBe(false);
    expect(ok('https://evil.example', undefined)).toBe(false);
  });
});

describe('a server with PUBLIC_URL', () => {
  const PUBLIC = 'https://chat.example.com';
  const t = useTestServer({ env: { PUBLIC_URL: PUBLIC }, config: { rateLimits: LOOSE_LIMITS } });

  it('refuses API calls whose Origin is only the Host’s, and takes those from PUBLIC_URL', async () => {
    const own = t.url;
    expectError(
      await t
        .client()
        .request('POST', '/api/auth/signin', { login: 'x', auth: randomAuth() }, { headers: { origin: own } }),
      403,
      'bad_origin',
    );
    const res = await t
      .client()
      .request('POST', '/api/auth/signin', { login: 'nobody', auth: randomAuth() }, { headers: { origin: PUBLIC } });
    expectError(res, 401, 'invalid_credentials');
  });

  it('refuses WebSocket upgrades whose Origin is only the Host’s', async () => {
    const { client } = await signUp(t);
    await expect(RawWsClient.open(t, client.cookie, t.url)).rejects.toThrow(/403/);
    const ok = await RawWsClient.open(t, client.cookie, PUBLIC);
    ok.destroy();
  });
});

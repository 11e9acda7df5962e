/** api() against a real HTTP server: answers checked by their schema, errors read from our error body. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError, api, apiJson } from './api';

let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    const send = (status: number, body: string, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    if (req.url === '/ok') send(200, JSON.stringify({ n: 3 }));
    else if (req.url === '/empty') send(204, '');
    else if (req.url === '/ours') send(429, JSON.stringify({ error: 'rate_limited', message: 'Too many', retryAt: 5 }));
    else if (req.url === '/proxy') send(502, '<html>Bad gateway</html>', 'text/html');
    else send(500, JSON.stringify({ message: 'Something odd' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
}

describe('api', () => {
  it('returns an answer that matches its schema, and refuses one that does not', async () => {
    expect(await api(z.object({ n: z.number() }), 'GET', `${base}/ok`)).toEqual({ n: 3 });
    const e = await refusal(api(z.object({ n: z.string() }), 'GET', `${base}/ok`));
    expect(e.message).toBe('The server sent an answer this page cannot read.');
  });

  it('gives an empty answer as null, unchecked with apiJson', async () => {
    expect(await apiJson('POST', `${base}/empty`, {})).toEqual({ status: 204, data: null });
  });

  it("reads the server's error body (code, message, retryAt), loading its schema on demand", async () => {
    const e = await refusal(apiJson('GET', `${base}/ours`));
    expect([e.status, e.code, e.message, e.retryAt]).toEqual([429, 'rate_limited', 'Too many', 5]);
  });

  it('a foreign error body: its message if it has one, else the status', async () => {
    const odd = await refusal(apiJson('GET', `${base}/odd`));
    expect([odd.status, odd.code, odd.message]).toEqual([500, 'internal', 'Something odd']);
    const proxy = await refusal(apiJson('GET', `${base}/proxy`));
    expect([proxy.status, proxy.message]).toEqual([502, 'Request failed (502)']);
  });

  it('an unreachable server is status 0 with a message to act on', async () => {
    const e = await refusal(apiJson('GET', 'http://127.0.0.1:1/nothing'));
    expect([e.status, e.message]).toEqual([0, 'Cannot reach the server. Check your connection and try again.']);
  });
});

/**
 * The sealed account data on the server (issue 28): only its owner reads and writes it;
 * versions move by compare-and-set, one at a time (a stale write is 409 and changes
 * nothing); a write is logged, so the owner's other sockets hear of it; its size is bounded.
 * Runs on SQLite, and on PostgreSQL too when TEST_DATABASE_URL is set.
 */
import { ACCOUNT_DATA_MAX, API } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { ENGINES, expectError, LOOSE_LIMITS, signUp, useTestServer } from '../test/harness.ts';
import { connectedPerson, waitUpdate } from '../test/people.ts';

const blob = (fill: string, n = 64) => fill.repeat(n);

describe.each(ENGINES)('account data on $name', ({ url }) => {
  const t = useTestServer({ engine: url, tag: 'account_data', config: { rateLimits: LOOSE_LIMITS } });

  it('is its owner’s alone, moves one version at a time, and tells the owner’s other sockets', async () => {
    const a = await connectedPerson(t);
    const other = await signUp(t);
    const put = (data: string, version: number, c = a.client) => c.request('PUT', API.accountData, { data, version });
    expect((await a.client.get(API.accountData)).body).toEqual({ data: null, version: 0 });
    expectError(await t.client().get(API.accountData), 401, 'unauthenticated');
    expectError(
      await t.client().request('PUT', API.accountData, { data: blob('a'), version: 1 }),
      401,
      'unauthenticated',
    );

    // Only the next version: not 2 before 1, not 1 twice.
    expectError(await put(blob('a'), 2), 409, 'conflict');
    expect((await put(blob('a'), 1)).status).toBe(204);
    expectError(await put(blob('b'), 1), 409, 'conflict');
    const logged = await waitUpdate(a.ws, 'accountData');
    expect(logged).toEqual({ kind: 'accountData', version: 1 });
    expect((await put(blob('c'), 2)).status).toBe(204);
    expect((await a.client.get(API.accountData)).body).toEqual({ data: blob('c'), version: 2 });

    // Another account reads its own (none), and its write does not touch a's.
    expect((await other.client.get(API.accountData)).body).toEqual({ data: null, version: 0 });
    expect((await put(blob('d'), 1, other.client)).status).toBe(204);
    expect((await a.client.get(API.accountData)).body).toEqual({ data: blob('c'), version: 2 });
  });

  it('takes one of many concurrent writes of the same version, and logs it once', async () => {
    const a = await connectedPerson(t);
    const puts = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        a.client.request('PUT', API.accountData, { data: blob(String.fromCharCode(97 + i)), version: 1 }),
      ),
    );
    expect(puts.map((r) => r.status).sort()).toEqual([204, ...Array(11).fill(409)]);
    const stored = (await a.client.get(API.accountData)).body;
    expect(stored.version).toBe(1);
    const winner = puts.findIndex((r) => r.status === 204);
    expect(stored.data).toBe(blob(String.fromCharCode(97 + winner)));
    await waitUpdate(a.ws, 'accountData');
    const logged = await t.server.ctx.store.db
      .selectFrom('user_updates')
      .select('kind')
      .where('user_id', '=', a.user.id)
      .where('kind', '=', 'accountData')
      .execute();
    expect(logged).toHaveLength(1);
  });

  it('refuses what is not a sealed blob, and one over the limit', async () => {
    const { client } = await signUp(t);
    const put = (body: unknown) => client.request('PUT', API.accountData, body);
    expectError(await put({ data: 'not base64url!', version: 1 }), 400, 'invalid_input');
    expectError(await put({ data: blob('a'), version: 0 }), 400, 'invalid_input');
    expectError(await put({ data: blob('a'), version: 1, extra: true }), 400, 'invalid_input');
    expect((await put({ data: blob('a', ACCOUNT_DATA_MAX + 1), version: 1 })).status).toBeGreaterThanOrEqual(400);
    // The largest allowed goes through (its route takes a body that large).
    expect((await put({ data: blob('a', ACCOUNT_DATA_MAX), version: 1 })).status).toBe(204);
    expect((await client.get(API.accountData)).body).toMatchObject({ version: 1 });
  });
});

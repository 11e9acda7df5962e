/**
 * /metrics: absent without METRICS_TOKEN, refused without the token, and with it the
 * Prometheus text of what happened: open sockets, messages stored, send latency, group-commit
 * sizes, updates published, HTTP statuses and refusals, and the process's own figures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOSE_LIMITS, signUp, startTestServer, type TestServer } from '../test/harness.ts';
import { METRICS_TEST_TOKEN, sample, scrape as scrapeServer } from '../test/metrics-scrape.ts';
import { WsTestClient } from '../test/ws-client.ts';
import { VERSION } from '../version.ts';

const TOKEN = METRICS_TEST_TOKEN;
let t: TestServer;
const scrape = (token?: string) => scrapeServer(t, token);

beforeAll(async () => {
  t = await startTestServer({ config: { rateLimits: LOOSE_LIMITS }, env: { METRICS_TOKEN: TOKEN } });
});

afterAll(async () => {
  await t?.close();
});

describe('/metrics', () => {
  it('is not served without METRICS_TOKEN', async () => {
    const plain = await startTestServer();
    try {
      expect((await fetch(`${plain.url}/metrics`)).status).toBe(404);
    } finally {
      await plain.close();
    }
  });

  it('refuses a scraper without the token', async () => {
    expect((await fetch(`${t.url}/metrics`)).status).toBe(401);
    expect((await scrape('wrong-token-0123456789')).status).toBe(401);
    expect((await scrape(`${TOKEN}x`)).status).toBe(401);
  });

  it('counts sockets, messages, send latency, group commits, updates and HTTP answers', async () => {
    const before = await scrape();
    expect(before.status).toBe(200);
    expect(before.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const stored0 = sample(before.text, 'parley_messages_stored_total') ?? 0;
    const sends0 = sample(before.text, 'parley_send_seconds_count') ?? 0;

    const alice = await signUp(t);
    const bob = await signUp(t);
    const a = await WsTestClient.connect(t, alice.client.cookie);
    const b = await WsTestClient.connect(t, bob.client.cookie);
    for (let i = 0; i < 5; i++) await a.sendMessage(bob.user.id, `hello ${i}`);
    await t.client().get('/api/no-such-route');

    const after = (await scrape()).text;
    expect(sample(after, 'parley_sockets')).toBe(2);
    expect(sample(after, 'parley_messages_stored_total')).toBe(stored0 + 5);
    expect(sample(after, 'parley_send_seconds_count')).toBe(sends0 + 5);
    expect(sample(after, 'parley_group_commit_jobs_count')).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'parley_updates_published_total')).toBeGreaterThanOrEqual(10);
    expect(after).toMatch(/^parley_http_responses_total\{status="404"\} [1-9]/m);
    expect(after).toMatch(/^parley_http_responses_total\{status="201"\} [1-9]/m);
    // Which release this is.
    expect(after).toContain(`parley_build_info{version="${VERSION}",node="${process.versions.node}"} 1`);
    expect(sample(after, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(after).toContain('nodejs_eventloop_lag_seconds');
    expect(after).toContain('# TYPE parley_redis_reconnects_total counter');
    expect(after).toContain('# TYPE parley_update_lag_seconds histogram');
    expect(after).toContain('# TYPE parley_update_catchup_entries_total counter');
    // The text of a message is nowhere in it.
    expect(after).not.toContain('hello');

    await a.close();
    await b.close();
    await expect.poll(async () => sample((await scrape()).text, 'parley_sockets')).toBe(0);
  });
});

/**
 * /metrics: absent without METRICS_TOKEN, refused without the token, and with it the
 * Prometheus text of what happened: open sockets, messages stored, send latency, group-commit
 * sizes, updates published, HTTP statuses, latency by route and refusals, refused sign-ins by
 * reason, and the process's own figures.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { API } from '@app/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacyAccount, randomAuth } from '../test/accounts.ts';
import { LOOSE_LIMITS, newUserInput, signInWith, signUp, startTestServer, type TestServer } from '../test/harness.ts';
import { METRICS_TEST_TOKEN, sample, scrape as scrapeServer } from '../test/metrics-scrape.ts';
import { WsTestClient } from '../test/ws-client.ts';
import { VERSION } from '../version.ts';

const TOKEN = METRICS_TEST_TOKEN;
let t: TestServer;
const scrape = (token?: string) => scrapeServer(t, token);

/** The value of the sample `name{labels}` (labels exactly as exposed, in order), or 0 when absent. */
function labelled(text: string, name: string, labels: Record<string, string>): number {
  const key = `${name}{${Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',')}} `;
  const line = text.split('\n').find((l) => l.startsWith(key));
  return line ? Number(line.slice(key.length)) : 0;
}

/** Every label value of every sample in a scrape. */
function labelValues(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .flatMap((l) => [...l.matchAll(/[a-z_]+="((?:[^"\\]|\\.)*)"/g)].map((m) => m[1] as string));
}

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

  it('times HTTP requests by route pattern, and counts refused sign-ins by reason, naming nobody', async () => {
    const failures = (text: string, reason: string) => labelled(text, 'parley_sign_in_failures_total', { reason });
    const timed = (text: string, method: string, route: string, statusClass: string) =>
      labelled(text, 'parley_http_request_duration_seconds_count', { method, route, status_class: statusClass });
    const before = (await scrape()).text;
    // Every reason is there from the start (at 0 on a fresh server), so rates over them exist.
    expect(before).toMatch(/^parley_sign_in_failures_total\{reason="wrong_password"\} \d+$/m);
    expect(before).toContain('# TYPE parley_http_request_duration_seconds histogram');

    const alice = await signUp(t);
    const bob = await signUp(t);
    const c = t.client();
    // A wrong password, a login nobody has, a body the schema refuses.
    expect((await signInWith(c, alice.input.email, 'not-her-password')).status).toBe(401);
    expect((await c.post(API.signIn, { login: `nobody_${alice.input.username}`, auth: randomAuth() })).status).toBe(
      401,
    );
    expect((await c.post(API.signIn, { login: alice.input.username })).status).toBe(400);
    // The right password of a blocked account.
    await t.server.ctx.store.setFlags(bob.user.id, { blocked: true });
    expect((await signInWith(c, bob.input.username, bob.input.password)).status).toBe(403);
    // A password from before end-to-end encryption while that path is closed.
    const old = newUserInput();
    await legacyAccount(t.server.ctx.store, old.password, old);
    t.server.ctx.legacyPasswords = false;
    try {
      expect((await c.post(API.signIn, { login: old.email, password: old.password })).status).toBe(401);
    } finally {
      t.server.ctx.legacyPasswords = true;
    }
    // One login guessed from one address until the attempt limit refuses it.
    const guessed = `guess_${alice.input.username}`;
    const statuses: number[] = [];
    for (let i = 0; i <= LOOSE_LIMITS.signInPerAccountIp; i++) {
      statuses.push((await c.post(API.signIn, { login: guessed, auth: randomAuth() })).status);
    }
    expect(statuses.at(-1)).toBe(429);
    // A parametrised route, asked with an id in its URL, and no route at all.
    expect((await alice.client.get(`${API.attachments}/${bob.user.id}`)).status).toBe(404);
    expect((await alice.client.get(`/api/no-such-route/${alice.user.id}`)).status).toBe(404);

    const after = (await scrape()).text;
    expect(failures(after, 'wrong_password') - failures(before, 'wrong_password')).toBe(1);
    expect(failures(after, 'unknown_login') - failures(before, 'unknown_login')).toBe(
      LOOSE_LIMITS.signInPerAccountIp + 1,
    );
    expect(failures(after, 'invalid_input') - failures(before, 'invalid_input')).toBe(1);
    expect(failures(after, 'blocked') - failures(before, 'blocked')).toBe(1);
    expect(failures(after, 'legacy_closed') - failures(before, 'legacy_closed')).toBe(1);
    expect(failures(after, 'rate_limited') - failures(before, 'rate_limited')).toBe(1);
    // Timed under the pattern, never the URL; a miss under "unmatched"; /metrics not at all.
    const route = `${API.attachments}/:id`;
    expect(timed(after, 'GET', route, '4xx') - timed(before, 'GET', route, '4xx')).toBe(1);
    expect(timed(after, 'POST', API.signIn, '4xx') - timed(before, 'POST', API.signIn, '4xx')).toBe(
      LOOSE_LIMITS.signInPerAccountIp + 6,
    );
    expect(timed(after, 'POST', API.signUp, '2xx')).toBeGreaterThanOrEqual(2);
    expect(timed(after, 'GET', 'unmatched', '4xx')).toBeGreaterThanOrEqual(1);
    expect(after).toMatch(
      /^parley_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/api\/attachments\/:id",status_class="4xx"\} \d+$/m,
    );
    expect(after).not.toContain('route="/metrics"');

    // No label holds an id, a handle, an e-mail address or a URL's own path.
    const values = labelValues(after);
    for (const secret of [alice.user.id, bob.user.id, alice.input.username, bob.input.username, old.username]) {
      expect(after).not.toContain(secret);
    }
    for (const value of values) {
      expect(value).not.toContain('@');
      expect(value).not.toMatch(/no-such-route|nobody_|guess_/);
    }
    const routes = new Set(values.filter((v) => v.startsWith('/') || v === 'unmatched'));
    for (const r of routes) expect(r === 'unmatched' || /^\/[a-z0-9/_:*-]*$/.test(r), r).toBe(true);
  });

  it('times the web app\'s files as "static" and its pages as "unmatched", not by their paths', async () => {
    const web = mkdtempSync(path.join(tmpdir(), 'parley-web-'));
    mkdirSync(path.join(web, 'assets'));
    writeFileSync(path.join(web, 'index.html'), '<!doctype html><title>Parley</title>');
    writeFileSync(path.join(web, 'assets', 'app-0123abcd.js'), 'console.log(1);');
    const w = await startTestServer({ env: { METRICS_TOKEN: TOKEN, WEB_DIST: web } });
    try {
      expect((await fetch(`${w.url}/assets/app-0123abcd.js`)).status).toBe(200);
      expect((await fetch(`${w.url}/chats/some-chat-id`)).status).toBe(200);
      const text = (await scrapeServer(w)).text;
      const timed = (route: string) =>
        labelled(text, 'parley_http_request_duration_seconds_count', { method: 'GET', route, status_class: '2xx' });
      expect(timed('static')).toBe(1);
      expect(timed('unmatched')).toBe(1);
      expect(text).not.toMatch(/app-0123abcd|some-chat-id|index\.html/);
    } finally {
      await w.close();
      rmSync(web, { recursive: true, force: true });
    }
  });
});

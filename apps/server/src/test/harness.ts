/**
 * Integration-test harness: a real server on port 0 with its own temporary DATA_DIR
 * (SQLite file) and a fetch client that keeps its session cookie.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import { buildServer, type Server } from '../app.ts';
import { type Config, DEFAULT_RATE_LIMITS, loadConfig } from '../config.ts';
import { type OutboxMail, readOutbox } from '../mail/outbox.ts';
import { credentialsFor, setUpKeys, signInBody } from './accounts.ts';
import { Sealer } from './sealing.ts';

export interface TestResponse<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

export class TestClient {
  cookie: string | null = null;
  /** The device cookie ('did') a sign-in left, sent back like a browser would. */
  device: string | null = null;
  readonly baseUrl: string;
  readonly headers: Record<string, string>;

  constructor(baseUrl: string, headers: Record<string, string> = {}) {
    this.baseUrl = baseUrl;
    this.headers = headers;
  }

  async request<T = any>(method: string, p: string, body?: unknown, init: RequestInit = {}): Promise<TestResponse<T>> {
    const headers: Record<string, string> = { ...this.headers };
    const cookies = [...(this.cookie ? [`sid=${this.cookie}`] : []), ...(this.device ? [`did=${this.device}`] : [])];
    if (cookies.length) headers.cookie = cookies.join('; ');
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(this.baseUrl + p, {
      method,
      headers: { ...headers, ...(init.headers as Record<string, string> | undefined) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      ...(init.signal ? { signal: init.signal } : {}),
    });
    for (const c of res.headers.getSetCookie()) {
      const m = c.match(/^sid=([^;]*)/);
      if (m) this.cookie = m[1] && !/Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(c) ? m[1] : null;
      const d = c.match(/^did=([^;]*)/);
      if (d) this.device = d[1] || null;
    }
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  get<T = any>(p: string) {
    return this.request<T>('GET', p);
  }
  post<T = any>(p: string, body: unknown = {}) {
    return this.request<T>('POST', p, body);
  }
  del<T = any>(p: string, body?: unknown) {
    return this.request<T>('DELETE', p, body);
  }
}

export interface TestServer {
  url: string;
  server: Server;
  dataDir: string;
  config: Config;
  client(headers?: Record<string, string>): TestClient;
  outbox(): OutboxMail[];
  /** Waits for a mail to `to` whose subject matches, newest first. */
  mailTo(to: string, subject?: RegExp): Promise<OutboxMail>;
  close(): Promise<void>;
}

export async function startTestServer(
  opts: {
    env?: Record<string, string>;
    config?: Partial<Config>;
    pgSchema?: string;
    /** Receives the server's log lines (JSON) at LOG_LEVEL (set it in env; 'silent' by default). */
    logStream?: { write(line: string): void };
  } = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-test-'));
  const config = loadConfig(
    {
      DATA_DIR: dataDir,
      PORT: '0',
      WEB_DIST: '',
      LOG_LEVEL: 'silent',
      ADMIN_EMAIL: 'admin@example.com',
      KDF_COST: '10',
      // Tests make accounts from before end-to-end encryption after the server started
      // (`auto` looks only at start); legacy-passwords.test.ts tests `auto` and `off`.
      LEGACY_PASSWORDS: 'on',
      ...opts.env,
    },
    opts.config,
  );
  const server = await buildServer(config, {
    logger: false,
    ...(opts.pgSchema ? { pgSchema: opts.pgSchema } : {}),
    ...(opts.logStream ? { logStream: opts.logStream } : {}),
  });
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  const address = server.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  const url = `http://127.0.0.1:${address.port}`;
  return {
    url,
    server,
    dataDir,
    config,
    client: (headers) => new TestClient(url, headers),
    outbox: () => readOutbox(dataDir),
    async mailTo(to, subject) {
      for (let i = 0; i < 100; i++) {
        const found = readOutbox(dataDir)
          .reverse()
          .find((m) => m.to.includes(to) && (!subject || subject.test(m.subject)));
        if (found) return found;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no mail to ${to}`);
    },
    async close() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const pgUrl = process.env.TEST_DATABASE_URL;
/** SQLite always; PostgreSQL too when TEST_DATABASE_URL is set. */
export const ENGINES = [{ name: 'SQLite', url: '' }, ...(pgUrl ? [{ name: 'PostgreSQL', url: pgUrl }] : [])];

export async function dropPgSchema(url: string, schema: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await c.end();
}

/**
 * A test server on SQLite (url '') or on PostgreSQL at `url`, in a schema of its own
 * named after `tag`; closing it also drops that schema.
 */
export async function startEngineServer(
  url: string,
  tag: string,
  opts: Omit<NonNullable<Parameters<typeof startTestServer>[0]>, 'pgSchema'> = {},
): Promise<TestServer> {
  if (!url) return startTestServer(opts);
  const schema = `t_${tag}_${process.pid}_${Date.now().toString(36)}`;
  const t = await startTestServer({ ...opts, env: { ...opts.env, DATABASE_URL: url }, pgSchema: schema });
  return {
    ...t,
    async close() {
      await t.close();
      await dropPgSchema(url, schema);
    },
  };
}

/**
 * The server of a test file (or describe block), like Hocuspocus' newHocuspocus: started
 * before its tests on the engine given (SQLite when '' or absent, else PostgreSQL in a
 * schema of its own) and closed after them. Returns a stand-in that reads through to the
 * running server, so tests use it as the server itself (`t.url`, `t.client()`, …).
 */
export function useTestServer(
  opts: { engine?: string; tag?: string } & Omit<NonNullable<Parameters<typeof startTestServer>[0]>, 'pgSchema'> = {},
): TestServer {
  const { engine = '', tag = 'srv', ...rest } = opts;
  let current: TestServer | null = null;
  beforeAll(async () => {
    current = await startEngineServer(engine, tag, rest);
  });
  afterAll(async () => {
    await current?.close();
    current = null;
  });
  return standIn(() => current, 'the test server');
}

/**
 * An object that reads through to what `get` returns when it is used: for fixtures set
 * up in beforeAll but named once at the top of a file. Using it outside a test throws.
 */
export function standIn<T extends object>(get: () => T | null, what: string): T {
  return new Proxy({} as T, {
    get(_, key) {
      const target = get();
      if (!target) throw new Error(`${what} is not ready (use it inside a test)`);
      return target[key as keyof T];
    },
  });
}

const redisUrl = process.env.TEST_REDIS_URL;
/** Why two servers on PostgreSQL + Redis cannot run here, or '' when they can. */
export const SCALE_OUT_SKIP =
  pgUrl && redisUrl ? '' : 'set TEST_DATABASE_URL and TEST_REDIS_URL to run tests with two servers';

/**
 * Two servers sharing one PostgreSQL schema and one Redis namespace, as two processes
 * behind a proxy would (each has its own connections and data dir). Closing drops both.
 */
export async function startServerPair(
  tag: string,
  opts: { env?: Record<string, string>; config?: Partial<Config> } = {},
): Promise<{ a: TestServer; b: TestServer; close(): Promise<void> }> {
  if (!pgUrl || !redisUrl) throw new Error(SCALE_OUT_SKIP);
  const id = `${tag}_${process.pid}_${Date.now().toString(36)}`;
  const schema = `t_${id}`;
  // No SESSION_SECRET: the servers agree on it through the database.
  const env = { ...opts.env, DATABASE_URL: pgUrl, REDIS_URL: redisUrl, REDIS_PREFIX: `test_${id}` };
  const a = await startTestServer({ ...opts, env, pgSchema: schema });
  const b = await startTestServer({ ...opts, env, pgSchema: schema });
  return {
    a,
    b,
    async close() {
      await a.close();
      await b.close();
      await dropPgSchema(pgUrl, schema);
    },
  };
}

let counter = 0;

/** A valid sign-up body with unique handle and e-mail. */
export function newUserInput(overrides: Record<string, unknown> = {}) {
  counter += 1;
  const tag = `${Date.now().toString(36)}${counter}`.slice(-10);
  return {
    name: 'Test User',
    phone: '5551234567',
    age: 30,
    username: `u_${tag}`,
    email: `u_${tag}@example.com`,
    password: 'secret123',
    agree: true,
    ...overrides,
  };
}

/** The sign-up body a browser sends for `input`: its fields, and `auth` instead of the password. */
export async function signUpBody(input: Record<string, unknown> & { password: string }) {
  const { password, ...fields } = input;
  const { credentials, wrapKey } = await credentialsFor(password);
  return { body: { ...fields, credentials }, wrapKey };
}

/**
 * Signs a new user up (from `ip`, behind a trusted proxy) as the web client does: `auth`
 * derived from the password, then the account's keys. Returns a client holding the session
 * (and registers the user's sealer: `Sealer.of(user.id)`, used by their test sockets).
 */
export async function signUp(t: TestServer, overrides: Record<string, unknown> = {}, ip?: string) {
  const input = newUserInput(overrides);
  const client = t.client(ip ? { 'x-forwarded-for': ip } : {});
  const { body, wrapKey } = await signUpBody(input);
  const res = await client.post('/api/auth/signup', body);
  if (res.status !== 201) throw new Error(`sign-up failed: ${res.status} ${JSON.stringify(res.body)}`);
  const user = res.body.user as { id: string; username: string; email: string };
  const secrets = await setUpKeys(client, user.id, wrapKey);
  Sealer.register(user.id, secrets.contents);
  return { client, input, user, secrets };
}

/** Signs in as a browser would (prelogin, then `auth`); the answer of POST /api/auth/signin. */
export async function signInWith(
  client: TestClient,
  login: string,
  password: string,
  extra: { remember?: boolean } = {},
): Promise<TestResponse<any>> {
  return client.post('/api/auth/signin', await signInBody(client, login, password, extra));
}

/** Follows the newest verification link sent to `email`. */
export async function verifyEmail(t: TestServer, email: string): Promise<void> {
  const mail = await t.mailTo(email, /Verify/);
  const link = mail.links.find((l) => l.includes('/verify-email?token='));
  if (!link) throw new Error('no verification link');
  const token = new URL(link).searchParams.get('token');
  const res = await t.client().post('/api/auth/verify-email', { token });
  if (res.status !== 200) throw new Error(`verify failed: ${res.status}`);
}

/** Limits high enough that a test file's many sign-ups from 127.0.0.1 are not refused. */
export const LOOSE_LIMITS = { ...DEFAULT_RATE_LIMITS, signUpPerIp: 1000, signInPerIp: 1000, mailPerIp: 1000 };

/** Asserts an API error answer: status, code and (optionally) the exact message. */
export function expectError(
  res: TestResponse<{ error?: string; message?: string }>,
  status: number,
  error: string,
  message?: string,
): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error).toBe(error);
  if (message !== undefined) expect(res.body.message).toBe(message);
}

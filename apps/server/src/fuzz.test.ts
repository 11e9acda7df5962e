/**
 * Seeded fuzz of everything a client sends, on SQLite and PostgreSQL: valid frames and
 * HTTP bodies mutated (NUL, unpaired surrogates, huge strings, any JSON, deep nesting,
 * keys added or dropped) and raw text that is no frame at all. After every batch: no
 * 5xx, no `internal` error, every frame the server sent matches the protocol (the test
 * client parses each), the server still answers, and the database is consistent.
 */
import { randomUUID } from 'node:crypto';
import { chatIdOf } from '@app/protocol';
import { SAMPLE_BODIES, sampleFrames } from '@app/protocol/test/samples';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inconsistencies } from './test/consistency.ts';
import { ENGINES, LOOSE_LIMITS, signUp, startEngineServer, type TestServer, verifyEmail } from './test/harness.ts';
import { type Mutation, mutate, mutationArb, rawTextArb } from './test/mutations.ts';
import { WsTestClient } from './test/ws-client.ts';

const SEED = 20261123;
const BATCHES = 20;
/** Routes anyone may call: sent from a fresh client, so the fuzzing user stays signed in. */
const PUBLIC = new Set([
  'signUp',
  'prelogin',
  'signIn',
  'signInLegacy',
  'verifyEmail',
  'forgotPassword',
  'resetPassword',
]);
const ADMIN = 'fuzz-admin@example.com';

/** Where each sample body goes. */
const ROUTES: Record<string, { method: string; path: string; query?: true }> = {
  signUp: { method: 'POST', path: '/api/auth/signup' },
  prelogin: { method: 'POST', path: '/api/auth/prelogin' },
  signIn: { method: 'POST', path: '/api/auth/signin' },
  signInLegacy: { method: 'POST', path: '/api/auth/signin' },
  changeEmail: { method: 'POST', path: '/api/account/email' },
  changePassword: { method: 'POST', path: '/api/account/password' },
  verifyEmail: { method: 'POST', path: '/api/auth/verify-email' },
  forgotPassword: { method: 'POST', path: '/api/auth/forgot-password' },
  resetPassword: { method: 'POST', path: '/api/auth/reset-password' },
  putKeys: { method: 'PUT', path: '/api/me/keys' },
  upgradeAuth: { method: 'POST', path: '/api/me/upgrade-auth' },
  profile: { method: 'PUT', path: '/api/me/profile' },
  privacy: { method: 'PUT', path: '/api/me/privacy' },
  setPin: { method: 'PUT', path: '/api/me/pin' },
  removePin: { method: 'DELETE', path: '/api/me/pin' },
  verifyPin: { method: 'POST', path: '/api/me/pin/verify' },
  adminUsersQuery: { method: 'GET', path: '/api/admin/users', query: true },
  adminUserFlags: { method: 'PATCH', path: '/api/admin/users/:peer' },
  broadcast: { method: 'POST', path: '/api/admin/notifications' },
  helpLink: { method: 'PUT', path: '/api/admin/settings' },
  auditQuery: { method: 'GET', path: '/api/admin/audit', query: true },
};

/** A body as a query string (what is not a string goes as its JSON). */
function queryOf(value: unknown): URLSearchParams {
  const entries = Object.entries(typeof value === 'object' && value ? value : {});
  return new URLSearchParams(
    entries.map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
}

type Action =
  | { kind: 'frame'; index: number; mutation: Mutation }
  | { kind: 'raw'; text: string }
  | { kind: 'http'; index: number; mutation: Mutation };

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('frame' as const), index: fc.nat(), mutation: mutationArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('raw' as const), text: rawTextArb }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('http' as const), index: fc.nat(), mutation: mutationArb }) },
);

describe.each(ENGINES)('fuzzing every request on $name', ({ url }) => {
  let t: TestServer;
  let me: Awaited<ReturnType<typeof signUp>>;
  let peer: Awaited<ReturnType<typeof signUp>>;
  let ws: WsTestClient;

  beforeAll(async () => {
    t = await startEngineServer(url, 'fuzz', {
      env: { ADMIN_EMAIL: ADMIN },
      config: {
        rateLimits: {
          ...LOOSE_LIMITS,
          signInPerIp: 100_000,
          signInPerAccount: 100_000,
          signInPerAccountIp: 100_000,
          apiPerMinute: 1_000_000,
          userWritesPerSecond: 100_000,
          userWriteBurst: 100_000,
        },
        wsFramesPerSecond: 100_000,
        wsBurst: 100_000,
      },
    });
    // The fuzzing user is the administrator (so admin bodies reach their parsers), with a
    // password no sample carries (no sample's `auth` is its, so no mutated body changes it).
    me = await signUp(t, { email: ADMIN, password: 'fuzz-password-1' });
    await verifyEmail(t, ADMIN);
    peer = await signUp(t);
    ws = await WsTestClient.connect(t, me.client.cookie);
    // The chat has its key, so the sample sends (sealed under epoch 1) are accepted as they are.
    await ws.sendMessage(peer.user.id, 'the chat gets its key');
  });
  afterAll(async () => {
    await ws?.close().catch(() => {});
    await t?.close();
  });

  it('answers every mutated frame and body without 5xx, internal errors or inconsistent data', async () => {
    const frames = sampleFrames(peer.user.id, chatIdOf(me.user.id, peer.user.id)).filter((f) => f.t !== 'hello');
    const failures: string[] = [];
    let sent = 0;

    /** Sends one mutated sample body over HTTP; a 5xx answer is a failure. */
    async function http(index: number, mutation: Extract<Action, { kind: 'http' }>['mutation']): Promise<void> {
      const body = SAMPLE_BODIES[index % SAMPLE_BODIES.length];
      if (!body) return;
      const route = ROUTES[body.name];
      if (!route) throw new Error(`no route for ${body.name}`);
      const value = mutate(body.value, mutation);
      const path = route.path.replace(':peer', peer.user.id);
      const client = PUBLIC.has(body.name) ? t.client() : me.client;
      const res = route.query
        ? await me.client.get(`${path}?${queryOf(value)}`)
        : await client.request(route.method, path, value === undefined ? null : value);
      if (res.status >= 500) failures.push(`${route.method} ${path} → ${res.status} ${JSON.stringify(res.body)}`);
    }

    async function act(a: Action): Promise<void> {
      if (a.kind === 'http') return http(a.index, a.mutation);
      if (ws.closed) ws = await WsTestClient.connect(t, me.client.cookie);
      if (a.kind === 'raw') {
        ws.sendRaw(a.text);
        return;
      }
      const frame = frames[a.index % frames.length] as Record<string, unknown>;
      const fresh = {
        ...frame,
        ...('msgId' in frame ? { msgId: randomUUID() } : {}),
        ...('id' in frame ? { id: `f${++sent}` } : {}),
      };
      ws.sendRaw(JSON.stringify(mutate(fresh, a.mutation)));
    }

    /** Whatever was acknowledged as sent is stored exactly as it was sent. */
    async function checkAcknowledged(): Promise<void> {
      for (const f of ws.frames) {
        if (f.t !== 'result' || !f.data || typeof f.data !== 'object' || !('message' in f.data)) continue;
        const m = (f.data as { message: { chatId: string; id: string; ct: string | null; deleted: boolean } }).message;
        const stored = await t.server.ctx.chat.message(m.chatId, m.id);
        if (!stored) failures.push(`message ${m.id} acknowledged but not stored`);
        else if (!stored.deleted && !m.deleted && stored.ct !== m.ct && !stored.edited) {
          failures.push(
            `message ${m.id} acknowledged as ${JSON.stringify(m.ct)} stored as ${JSON.stringify(stored.ct)}`,
          );
        }
      }
    }

    await fc.assert(
      fc.asyncProperty(fc.array(actionArb, { minLength: 30, maxLength: 60 }), async (actions) => {
        for (const a of actions) await act(a);
        // A round trip on the same socket (frames are handled in order): every frame of the
        // batch has been answered. (A socket the server closed, e.g. for a frame over the
        // size limit, handles nothing more anyway.)
        if (!ws.closed) await ws.request('chats').catch(() => {});
        const internal = ws.frames.filter((f) => f.t === 'error' && f.code === 'internal');
        if (internal.length) failures.push(`internal errors: ${JSON.stringify(internal.slice(0, 3))}`);
        await checkAcknowledged();
        ws.frames.length = 0;
        expect((await t.client().get('/healthz')).status).toBe(200);
        const broken = await inconsistencies(t.server.ctx.chat.db);
        if (Object.keys(broken).length) failures.push(`inconsistent: ${JSON.stringify(broken)}`);
        expect(failures.join('\n').slice(0, 1500)).toBe('');
      }),
      {
        seed: SEED,
        numRuns: BATCHES,
        endOnFailure: true,
        // The counterexample holds strings of tens of kilobytes: report where to replay it.
        reporter: (run) => {
          if (run.failed) {
            throw new Error(
              `fuzz failed (seed ${run.seed}, path ${run.counterexamplePath}): ${String(run.errorInstance).slice(0, 2000)}`,
            );
          }
        },
      },
    );
  });
});

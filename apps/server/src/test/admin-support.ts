/**
 * What the admin integration tests share: the engines to run on, timing and refusal
 * helpers, a snapshot of everything an admin call could change, and readers of the
 * frames a socket received.
 */

import { API, type AuditEntry, type AuditPage, type GlobalEvent, PROTOCOL_VERSION } from '@app/protocol';
import { beforeAll, expect } from 'vitest';
import { HELP_LINK_KEY } from '../storage/accounts/admin-store.ts';
import {
  ENGINES,
  LOOSE_LIMITS,
  signUp,
  standIn,
  type TestResponse,
  type TestServer,
  useTestServer,
} from './harness.ts';
import { countUserSessions } from './store-queries.ts';
import { WsTestClient } from './ws-client.ts';

export { settle, updatesOf } from './people.ts';

/** SQLite always; PostgreSQL too when TEST_DATABASE_URL is set. */
export const engines = ENGINES;

export const ADMIN_EMAIL = 'admin@example.com';
export const PASSWORD = 'secret123';
export const FORBIDDEN = 'Only the administrator can do this';
/** Many calls from one IP: the per-minute API limit must not be what answers. */
export const LIMITS = { ...LOOSE_LIMITS, apiPerMinute: 100_000 };

/** Resolves once the clock has passed `ms`, so the server's next timestamp is later. */
export async function clockPast(ms: number): Promise<void> {
  while (Date.now() <= ms) await new Promise((r) => setImmediate(r));
}

/** Asserts an error answer, naming the case in the failure. */
export function refused(res: TestResponse, status: number, error: string, label: string, message?: string): void {
  const body = res.body as { error?: string; message?: string } | null;
  expect(res.status, `${label}: ${JSON.stringify(body)}`).toBe(status);
  expect(body?.error, label).toBe(error);
  if (message !== undefined) expect(body?.message, label).toBe(message);
}

/** Everything a refused admin call could have changed. */
export async function snapshot(t: TestServer, userIds: string[]) {
  const { store, admin } = t.server.ctx;
  const users = [];
  for (const id of userIds) {
    const u = await store.userById(id);
    users.push(
      u && {
        id: u.id,
        verified: u.verified,
        blocked: u.blocked,
        emailVerified: u.emailVerified,
        sessions: await countUserSessions(store, id),
      },
    );
  }
  return {
    users,
    totalUsers: await store.countUsers(),
    broadcasts: await admin.broadcasts(),
    helpLink: await store.getSetting(HELP_LINK_KEY),
    audit: await admin.auditLog(),
  };
}

/** Opens and greets like WsTestClient.connect, keeping the raw text of every frame in `raw`. */
export async function connectRaw(
  t: TestServer,
  raw: Map<WsTestClient, string[]>,
  cookie: string | null,
  lastSeq: number | null = null,
): Promise<WsTestClient> {
  const ws = await WsTestClient.open(t, cookie);
  const texts: string[] = [];
  ws.ws.on('message', (data) => texts.push(data.toString()));
  raw.set(ws, texts);
  ws.sendRaw({ t: 'hello', v: PROTOCOL_VERSION, lastSeq });
  await ws.waitFor(() => ws.welcome !== null);
  return ws;
}

export function globals<K extends GlobalEvent['kind']>(ws: WsTestClient, kind: K) {
  return ws.frames.flatMap((f) =>
    f.t === 'global' && f.event.kind === kind ? [f.event as Extract<GlobalEvent, { kind: K }>] : [],
  );
}

/** Waits for a global event of `kind` matching `pred`; resolves with all that match. */
export async function waitGlobal<K extends GlobalEvent['kind']>(
  ws: WsTestClient,
  kind: K,
  pred: (e: Extract<GlobalEvent, { kind: K }>) => boolean,
) {
  await ws.waitFor(() => globals(ws, kind).some(pred));
  return globals(ws, kind).filter(pred);
}

/**
 * The set-up of the live admin suites: a server, its administrator and a regular user
 * connected for the whole file (the watcher), every socket's raw frames kept in `raw`
 * and every e-mail signed up in `emails` (to look for leaks).
 */
export function useAdminFixture(engine: string, tag: string) {
  const t = useTestServer({ engine, tag, config: { rateLimits: LIMITS } });
  const raw = new Map<WsTestClient, string[]>();
  const emails: string[] = [];
  const connect = (cookie: string | null, lastSeq: number | null = null) => connectRaw(t, raw, cookie, lastSeq);
  async function person(overrides: Record<string, unknown> = {}, asAdmin = false) {
    const p = await signUp(t, overrides);
    emails.push(p.input.email);
    if (asAdmin) expect(await t.server.ctx.store.setEmailVerified(p.user.id, p.input.email)).toBe(true);
    return { ...p, ws: await connect(p.client.cookie) };
  }
  type Person = Awaited<ReturnType<typeof person>>;
  let admin: Person | null = null;
  let watcher: Person | null = null;
  beforeAll(async () => {
    admin = await person({ email: ADMIN_EMAIL }, true);
    watcher = await person();
  });
  const f = {
    t,
    raw,
    emails,
    connect,
    person,
    admin: standIn(() => admin, 'the administrator'),
    /** A regular user connected for the whole file: what they hear is checked for leaks. */
    watcher: standIn(() => watcher, 'the watcher'),
    async patchUser(id: string, flags: { verified?: boolean; blocked?: boolean }) {
      const res = await f.admin.client.request('PATCH', `${API.adminUsers}/${id}`, flags);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.user;
    },
    async auditOf(targetId: string | null, action?: string): Promise<AuditEntry[]> {
      const res = await f.admin.client.get<AuditPage>(API.adminAudit);
      expect(res.status).toBe(200);
      return res.body.entries.filter((e) => e.targetId === targetId && (!action || e.action === action));
    },
  };
  return f;
}

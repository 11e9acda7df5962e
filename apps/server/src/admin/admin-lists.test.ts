/**
 * The administrator's lists against a real server, the client bypassed: raw HTTP with
 * the session cookie. The users list searches handle, name and e-mail and pages by
 * handle; the audit log lists who did what to whom and when, newest first, a page at a
 * time. Runs on SQLite, and on PostgreSQL too when TEST_DATABASE_URL is set.
 */
import {
  ADMIN_USERS_PAGE,
  type AdminUser,
  type AdminUsersPage,
  API,
  AUDIT_PAGE,
  type AuditEntry,
  type AuditPage,
} from '@app/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, clockPast, engines, LIMITS } from '../test/admin-support.ts';
import { expectError, signUp, startEngineServer, type TestServer } from '../test/harness.ts';

describe.each(engines)('on $name', ({ url }) => {
  let t: TestServer;
  let admin: Awaited<ReturnType<typeof signUp>>;
  beforeAll(async () => {
    t = await startEngineServer(url, 'admlst', { config: { rateLimits: LIMITS } });
    admin = await signUp(t, { email: ADMIN_EMAIL });
    expect(await t.server.ctx.store.setEmailVerified(admin.user.id, ADMIN_EMAIL)).toBe(true);
  });
  afterAll(async () => {
    await t?.close();
  });

  async function patchUser(id: string, flags: { verified?: boolean; blocked?: boolean }) {
    const res = await admin.client.request('PATCH', `${API.adminUsers}/${id}`, flags);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.user;
  }

  async function auditOf(targetId: string | null): Promise<AuditEntry[]> {
    const res = await admin.client.get<AuditPage>(API.adminAudit);
    expect(res.status).toBe(200);
    return res.body.entries.filter((e) => e.targetId === targetId);
  }

  describe('the users list', () => {
    it('searches handle, name and e-mail in any case, pages by handle, and shows e-mails', async () => {
      const tag = Date.now().toString(36).slice(-6);
      const { store } = t.server.ctx;
      const made = [];
      // Straight into the store: a hundred sign-ups would be slow and add nothing here.
      for (let i = 0; i < ADMIN_USERS_PAGE + 3; i++) {
        const n = String(i).padStart(3, '0');
        made.push(
          await store.createUser({
            username: `Pg${tag}_${n}`,
            name: i === 7 ? 'Zebra Quokka' : `Pager ${n}`,
            email: `box${n}.${tag}@mail.example.org`,
            phone: '5551234567',
            age: 30,
            passwordHash: 'not-a-hash',
            now: Date.now(),
          }),
        );
      }
      const list = async (query: string, after?: string) => {
        const qs = new URLSearchParams({ query, ...(after ? { after } : {}) });
        const res = await admin.client.get<AdminUsersPage>(`${API.adminUsers}?${qs}`);
        expect(res.status, JSON.stringify(res.body).slice(0, 200)).toBe(200);
        return res.body;
      };
      const p1 = await list(`pg${tag}`);
      expect(p1.total).toBe(ADMIN_USERS_PAGE + 3);
      expect(p1.users).toHaveLength(ADMIN_USERS_PAGE);
      expect(p1.next).toBe(p1.users.at(-1)?.username.toLowerCase());
      const p2 = await list(`pg${tag}`, p1.next ?? '');
      expect(p2).toMatchObject({ next: null, total: ADMIN_USERS_PAGE + 3 });
      expect([...p1.users, ...p2.users].map((u) => u.id)).toEqual(made.map((u) => u.id));
      const seventh = made[7];
      expect(p1.users[7]).toEqual({
        id: seventh?.id,
        username: seventh?.username,
        name: 'Zebra Quokka',
        email: seventh?.email,
        emailVerified: false,
        verified: false,
        blocked: false,
        createdAt: seventh?.createdAt,
        isSelf: false,
      } satisfies Partial<AdminUser>);

      const ids = async (query: string) => (await list(query)).users.map((u) => u.id);
      expect(await ids('zebra QUOKKA')).toEqual([seventh?.id]);
      expect(await ids(`@PG${tag}_007`)).toEqual([seventh?.id]);
      expect(await ids(`BOX007.${tag}@MAIL`)).toEqual([seventh?.id]);
      // LIKE wildcards are plain characters.
      expect(await list('%')).toEqual({ users: [], next: null, total: 0 });
      expect(await ids(`pg${tag}_00_`)).toEqual([]);
      expect(await ids(`${tag}\\`)).toEqual([]);

      const me = (await list(ADMIN_EMAIL)).users;
      expect(me).toEqual([expect.objectContaining({ id: admin.user.id, email: ADMIN_EMAIL, isSelf: true })]);
      const all = await list('');
      expect(all.total).toBe(await store.countUsers());
      expect((await admin.client.get(API.adminStats)).body).toEqual({ totalUsers: all.total });
    });
  });

  describe('the audit log', () => {
    it('lists who did what to whom, newest first, a page at a time without overlap', async () => {
      const x = await signUp(t);
      await clockPast(Date.now()); // later than every entry so far
      const start = Date.now();
      const toggles = AUDIT_PAGE + 6;
      for (let i = 0; i < toggles; i++) await patchUser(x.user.id, { verified: i % 2 === 0 });
      const end = Date.now();

      const pages: AuditPage[] = [];
      let before: string | null = null;
      do {
        const path: string = before ? `${API.adminAudit}?before=${encodeURIComponent(before)}` : API.adminAudit;
        const res = await admin.client.get<AuditPage>(path);
        expect(res.status).toBe(200);
        pages.push(res.body);
        before = res.body.next;
      } while (before && pages.length < 100);
      const first = pages[0];
      expect(first?.entries).toHaveLength(AUDIT_PAGE);
      const lastOfFirst = first?.entries.at(-1);
      expect(first?.next).toBe(`${lastOfFirst?.at}:${lastOfFirst?.id}`);
      for (const p of pages.slice(0, -1)) expect(p.entries).toHaveLength(AUDIT_PAGE);
      expect(pages.at(-1)?.next).toBeNull();

      const all = pages.flatMap((p) => p.entries);
      expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
      const total = await t.server.ctx.store.db
        .selectFrom('audit_log')
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(all).toHaveLength(Number(total.n));
      for (let i = 1; i < all.length; i++) expect(all[i - 1]?.at).toBeGreaterThanOrEqual(all[i]?.at ?? 0);

      const mine = all.filter((e) => e.targetId === x.user.id);
      expect(mine).toHaveLength(toggles);
      for (const e of mine) {
        expect(e).toEqual({
          id: expect.any(String),
          at: expect.any(Number),
          actorId: admin.user.id,
          actorUsername: admin.user.username,
          action: expect.stringMatching(/^user\.(un)?verify$/),
          targetId: x.user.id,
          targetLabel: `@${x.input.username}`,
          detail: null,
        });
        expect(e.at).toBeGreaterThanOrEqual(start);
        expect(e.at).toBeLessThanOrEqual(end);
      }
      expect(mine.filter((e) => e.action === 'user.verify')).toHaveLength(toggles / 2);
      // The toggles spill over the first page: the second continues where it ended.
      expect(first?.entries.every((e) => e.targetId === x.user.id)).toBe(true);
      expect(pages[1]?.entries.slice(0, toggles - AUDIT_PAGE).every((e) => e.targetId === x.user.id)).toBe(true);

      // A cursor that is not one is ignored: the first page again.
      expect((await admin.client.get(`${API.adminAudit}?before=garbage`)).body).toEqual(first);
      expectError(await t.client().get(API.adminAudit), 401, 'unauthenticated');
    });

    it('entries of the same millisecond page without overlap or gap', async () => {
      const x = await signUp(t);
      const actor = { id: admin.user.id, username: admin.user.username };
      const now = Date.now() + 60_000; // newer than everything else, all in one millisecond
      for (let i = 0; i < AUDIT_PAGE + 10; i++) {
        await t.server.ctx.admin.setFlags(actor, actor.id, x.user.id, { verified: i % 2 === 0 }, now);
      }
      const p1 = (await admin.client.get<AuditPage>(API.adminAudit)).body;
      expect(p1.entries.every((e) => e.at === now)).toBe(true);
      const p2 = (await admin.client.get<AuditPage>(`${API.adminAudit}?before=${encodeURIComponent(p1.next ?? '')}`))
        .body;
      const ids = [...p1.entries, ...p2.entries].filter((e) => e.at === now).map((e) => e.id);
      expect(ids).toHaveLength(AUDIT_PAGE + 10);
      expect(new Set(ids).size).toBe(AUDIT_PAGE + 10);
    });

    // Two actions in one millisecond (PATCH {verified, blocked} writes two entries with one
    // `now`; quick toggles) keep their order: audit ids sort by time, then a counter.
    it('actions of the same millisecond are listed newest first', async () => {
      const x = await signUp(t);
      const actor = { id: admin.user.id, username: admin.user.username };
      const now = Date.now() + 120_000;
      const expected: string[] = [];
      for (let i = 0; i < 20; i++) {
        const verified = i % 2 === 0;
        await t.server.ctx.admin.setFlags(actor, actor.id, x.user.id, { verified }, now);
        expected.unshift(verified ? 'user.verify' : 'user.unverify');
      }
      const got = (await auditOf(x.user.id)).map((e) => e.action);
      expect(got).toEqual(expected);
    });
  });
});

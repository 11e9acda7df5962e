/**
 * The storage contract: the same behaviour from every engine. `store.test.ts` runs it
 * on SQLite, `store.pg.test.ts` on PostgreSQL.
 */

import { chatIdOf } from '@app/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountStore } from '../storage/accounts/account-store.ts';
import { TakenError } from '../storage/accounts/users.ts';
import type { Db } from '../storage/db.ts';
import { migrate } from '../storage/db.ts';
import { countUserSessions, setSetting } from './store-queries.ts';

let n = 0;
function newUser(overrides: Partial<{ username: string; email: string }> = {}) {
  n += 1;
  return {
    username: overrides.username ?? `user_${n}_${Math.random().toString(36).slice(2, 8)}`,
    email: overrides.email ?? `user${n}_${Math.random().toString(36).slice(2, 8)}@example.com`,
    name: 'Some One',
    phone: '5551234567',
    age: 30,
    passwordHash: 'hash',
    now: 1_700_000_000_000 + n,
  };
}

export function storeContract(engine: string, open: () => Promise<Db>): void {
  describe(`AccountStore contract on ${engine}`, () => {
    let db: Db;
    let store: AccountStore;

    beforeAll(async () => {
      db = await open();
      await migrate(db);
      store = new AccountStore(db);
    });
    afterAll(async () => {
      await db?.close();
    });

    it('migrations are idempotent', async () => {
      expect(await migrate(db)).toEqual([]);
    });

    it('creates a user with settings defaults, online, and finds it by id, e-mail and handle in any case', async () => {
      const input = newUser({ username: 'MixedCase_1' });
      const u = await store.createUser(input);
      expect(u.id).toMatch(/^[A-Za-z0-9]{20}$/);
      expect(u.status).toBe('online');
      expect(u.emailVerified).toBe(false);
      expect((await store.userById(u.id))?.username).toBe('MixedCase_1');
      expect((await store.userByUsername('mixedcase_1'))?.id).toBe(u.id);
      expect((await store.userByEmail(input.email.toUpperCase()))?.id).toBe(u.id);
      const settings = await store.db
        .selectFrom('user_settings')
        .selectAll()
        .where('user_id', '=', u.id)
        .executeTakeFirst();
      expect(settings).toMatchObject({ read_receipts: 1, last_seen: 1, require_request: 0 });
      expect(u.createdAt).toBe(input.now);
    });

    it('refuses a taken handle or e-mail case-insensitively and writes nothing', async () => {
      const a = newUser();
      await store.createUser(a);
      const before = await store.countUsers();
      await expect(store.createUser(newUser({ username: a.username.toUpperCase() }))).rejects.toThrow(TakenError);
      await expect(store.createUser(newUser({ email: a.email.toUpperCase() }))).rejects.toMatchObject({
        field: 'email',
      });
      expect(await store.countUsers()).toBe(before);
    });

    it('stores text verbatim, SQL and HTML included', async () => {
      const u = await store.createUser({ ...newUser(), name: `Robert'); DROP TABLE users;-- <b>` });
      expect((await store.userById(u.id))?.name).toBe(`Robert'); DROP TABLE users;-- <b>`);
    });

    it('verifies an e-mail only while it is still the account address', async () => {
      const u = await store.createUser(newUser());
      expect(await store.setEmailVerified(u.id, 'other@example.com')).toBe(false);
      expect(await store.setEmailVerified(u.id, u.email.toUpperCase())).toBe(true);
      expect((await store.userById(u.id))?.emailVerified).toBe(true);
      await store.changeEmail(u.id, `new_${u.email}`, 5);
      const changed = await store.userById(u.id);
      expect(changed?.email).toBe(`new_${u.email}`);
      expect(changed?.emailVerified).toBe(false);
      expect(changed?.updatedAt).toBe(5);
    });

    it('sessions: create, find, touch, delete one, delete all but one, expire', async () => {
      const u = await store.createUser(newUser());
      const base = {
        userId: u.id,
        createdAt: 1,
        authAt: 1,
        lastUsedAt: 1,
        persistent: true,
        userAgent: 'ua',
        ip: '127.0.0.1',
      };
      await store.createSession({ ...base, tokenHash: `a-${u.id}`, expiresAt: 100 });
      await store.createSession({ ...base, tokenHash: `b-${u.id}`, expiresAt: Number.MAX_SAFE_INTEGER });
      await store.createSession({
        ...base,
        tokenHash: `c-${u.id}`,
        expiresAt: Number.MAX_SAFE_INTEGER,
        persistent: false,
      });
      expect(await store.sessionByHash(`c-${u.id}`)).toMatchObject({ userId: u.id, persistent: false });
      await store.touchSession(`b-${u.id}`, 50, 9_000_000_000_000);
      expect(await store.sessionByHash(`b-${u.id}`)).toMatchObject({ lastUsedAt: 50, expiresAt: 9_000_000_000_000 });
      expect(await store.deleteExpiredSessions(200)).toBeGreaterThanOrEqual(1);
      expect(await store.sessionByHash(`a-${u.id}`)).toBeNull();
      expect(await store.deleteUserSessions(u.id, `b-${u.id}`)).toBe(1);
      expect(await countUserSessions(store, u.id)).toBe(1);
      await store.deleteSession(`b-${u.id}`);
      expect(await countUserSessions(store, u.id)).toBe(0);
    });

    it('e-mail tokens are single-use, expire, and a new one voids the old', async () => {
      const u = await store.createUser(newUser());
      const t = { userId: u.id, kind: 'verify' as const, email: u.email, createdAt: 1 };
      await store.createEmailToken({ ...t, tokenHash: `t1-${u.id}`, expiresAt: 1000 });
      await store.createEmailToken({ ...t, tokenHash: `t2-${u.id}`, expiresAt: 1000 });
      expect(await store.consumeEmailToken(`t1-${u.id}`, 'verify', 10)).toBeNull();
      expect(await store.consumeEmailToken(`t2-${u.id}`, 'reset', 10)).toBeNull();
      expect(await store.consumeEmailToken(`t2-${u.id}`, 'verify', 10)).toMatchObject({ userId: u.id, email: u.email });
      expect(await store.consumeEmailToken(`t2-${u.id}`, 'verify', 11)).toBeNull();
      await store.createEmailToken({ ...t, tokenHash: `t3-${u.id}`, expiresAt: 1000 });
      expect(await store.consumeEmailToken(`t3-${u.id}`, 'verify', 1000)).toBeNull();
    });

    it('flags, presence and password hash update', async () => {
      const u = await store.createUser(newUser());
      await store.setFlags(u.id, { verified: true });
      await store.setFlags(u.id, { blocked: true });
      await store.setPresence(u.id, 'offline', 1234);
      await store.setPasswordHash(u.id, 'h2');
      expect(await store.userById(u.id)).toMatchObject({
        verified: true,
        blocked: true,
        status: 'offline',
        lastSeen: 1234,
        passwordHash: 'h2',
      });
    });

    it('deleting a user removes what is theirs and keeps what is the peer’s', async () => {
      const a = await store.createUser(newUser());
      const b = await store.createUser(newUser());
      const chat = chatIdOf(a.id, b.id);
      const msg = {
        chat_id: chat,
        text: 'hi',
        timestamp: 1,
        status: 'sent' as const,
        edited: 0 as const,
        deleted: 0 as const,
        delivered_at: null,
        read_at: null,
      };
      await store.db
        .insertInto('messages')
        .values([
          { ...msg, id: 'm1', sender_id: a.id, recipient_id: b.id },
          { ...msg, id: 'm2', sender_id: b.id, recipient_id: a.id },
        ])
        .execute();
      const summary = {
        chat_id: chat,
        last_message: 'hi',
        timestamp: 1,
        unread_count: 0,
        archived: 0 as const,
        locked: 0 as const,
      };
      await store.db
        .insertInto('user_chats')
        .values([
          { ...summary, user_id: a.id, peer_id: b.id },
          { ...summary, user_id: b.id, peer_id: a.id },
        ])
        .execute();
      await store.db
        .insertInto('contacts')
        .values([
          { user_id: a.id, other_id: b.id, created_at: 1 },
          { user_id: b.id, other_id: a.id, created_at: 1 },
        ])
        .execute();
      await store.createSession({
        tokenHash: `s-${a.id}`,
        userId: a.id,
        createdAt: 1,
        authAt: 1,
        lastUsedAt: 1,
        expiresAt: 9e12,
        persistent: true,
        userAgent: null,
        ip: null,
      });

      await store.deleteUser(a.id);

      expect(await store.userById(a.id)).toBeNull();
      expect(await store.userByUsername(a.username)).toBeNull();
      expect(await store.sessionByHash(`s-${a.id}`)).toBeNull();
      const msgs = await store.db
        .selectFrom('messages')
        .select(['id', 'sender_id'])
        .where('chat_id', '=', chat)
        .execute();
      expect(msgs).toEqual([{ id: 'm2', sender_id: b.id }]);
      const chats = await store.db.selectFrom('user_chats').select('user_id').where('chat_id', '=', chat).execute();
      expect(chats).toEqual([{ user_id: b.id }]);
      expect(await store.db.selectFrom('contacts').selectAll().where('other_id', '=', a.id).execute()).toEqual([]);
      expect(await store.db.selectFrom('user_settings').selectAll().where('user_id', '=', a.id).execute()).toEqual([]);
      // The handle is free again.
      await store.createUser(newUser({ username: a.username, email: a.email }));
    });

    it('global settings upsert and clear', async () => {
      expect(await store.getSetting('helpLink')).toBeNull();
      await setSetting(store, 'helpLink', 'https://example.com/help');
      await setSetting(store, 'helpLink', 'https://example.com/help2');
      expect(await store.getSetting('helpLink')).toBe('https://example.com/help2');
      await setSetting(store, 'helpLink', null);
      expect(await store.getSetting('helpLink')).toBeNull();
    });

    it('a shared setting keeps the first value stored', async () => {
      const [x, y] = await Promise.all([
        store.sharedSetting('shared', 'first'),
        store.sharedSetting('shared', 'second'),
      ]);
      expect(x).toBe(y);
      expect(await store.sharedSetting('shared', 'third')).toBe(x);
    });

    it('counts users', async () => {
      const before = await store.countUsers();
      await store.createUser(newUser());
      expect(await store.countUsers()).toBe(before + 1);
    });
  });
}

/**
 * Accounts in storage: users, their sessions, e-mail tokens and the server's shared
 * settings, behind one class, so the same contract tests run against SQLite and
 * PostgreSQL. (Messages: messages/chat-store.ts; the rest of an account's data:
 * the other stores in this folder.)
 */

import type { Kysely, Transaction } from 'kysely';
import type { Db } from '../db.ts';
import { newId } from '../ids.ts';
import { lockUser } from '../people-locks.ts';
import type { Bool, Database, EmailTokenKind } from '../schema.ts';
import { deleteKeys } from './key-store.ts';
import {
  b,
  type EmailToken,
  isUniqueViolation,
  type NewUser,
  type SessionRecord,
  TakenError,
  toUser,
  type User,
  type UserRow,
} from './users.ts';

export class AccountStore {
  readonly db: Kysely<Database>;
  readonly engine: Db['engine'];

  constructor(db: Db) {
    this.db = db.kysely;
    this.engine = db.engine;
  }

  async ping(): Promise<void> {
    await this.db.selectFrom('settings').select('key').limit(1).execute();
  }

  // ---- users ---------------------------------------------------------------

  async createUser(input: NewUser): Promise<User> {
    const row: UserRow = {
      id: newId(),
      username: input.username,
      username_lower: input.username.toLowerCase(),
      name: input.name,
      email: input.email,
      email_lower: input.email.toLowerCase(),
      email_verified: 0,
      phone: input.phone,
      age: input.age,
      profile_pic: null,
      password_hash: input.passwordHash,
      created_at: input.now,
      updated_at: null,
      status: 'online',
      last_seen: input.now,
      verified: 0,
      blocked: 0,
      pin_hash: null,
      pin_failures: 0,
      pin_locked_until: null,
      update_seq: 0,
      notifications_seen_at: null,
      kdf: input.e2ee ? JSON.stringify(input.e2ee.kdf) : null,
      kdf_salt: input.e2ee?.salt ?? null,
      email_login: input.e2ee?.email ? JSON.stringify(input.e2ee.email) : null,
      auth_version: input.e2ee ? 1 : 0,
      attachment_bytes: 0,
    };
    try {
      await this.db.transaction().execute(async (tx) => {
        // Null is email_login's default and 0 attachment_bytes': left out, so a database at
        // an older migration (the migration tests seed one through this) takes the row too.
        const { email_login, attachment_bytes: _, ...older } = row;
        const { attachment_bytes: __, ...current } = row;
        await tx
          .insertInto('users')
          .values(email_login === null ? older : current)
          .execute();
        await tx
          .insertInto('user_settings')
          .values({ user_id: row.id, read_receipts: 1, last_seen: 1, require_request: 0 })
          .execute();
      });
    } catch (e) {
      const unique = isUniqueViolation(e);
      if (unique !== null) throw new TakenError(unique.includes('email') ? 'email' : 'username');
      throw e;
    }
    return toUser(row);
  }

  async userById(id: string): Promise<User | null> {
    const r = await this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toUser(r) : null;
  }

  async userByEmail(email: string): Promise<User | null> {
    const r = await this.db
      .selectFrom('users')
      .selectAll()
      .where('email_lower', '=', email.trim().toLowerCase())
      .executeTakeFirst();
    return r ? toUser(r) : null;
  }

  async userByUsername(username: string): Promise<User | null> {
    const r = await this.db
      .selectFrom('users')
      .selectAll()
      .where('username_lower', '=', username.trim().toLowerCase())
      .executeTakeFirst();
    return r ? toUser(r) : null;
  }

  async usernameTaken(username: string): Promise<boolean> {
    return (await this.userByUsername(username)) !== null;
  }

  async countUsers(): Promise<number> {
    const r = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async setEmailVerified(userId: string, email: string): Promise<boolean> {
    const r = await this.db
      .updateTable('users')
      .set({ email_verified: 1 })
      .where('id', '=', userId)
      .where('email_lower', '=', email.toLowerCase())
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async changeEmail(userId: string, email: string, now: number): Promise<void> {
    try {
      await this.db
        .updateTable('users')
        .set({ email, email_lower: email.toLowerCase(), email_verified: 0, updated_at: now })
        .where('id', '=', userId)
        .execute();
    } catch (e) {
      if (isUniqueViolation(e) !== null) throw new TakenError('email');
      throw e;
    }
  }

  async setPasswordHash(userId: string, hash: string): Promise<void> {
    await this.db.updateTable('users').set({ password_hash: hash }).where('id', '=', userId).execute();
  }

  async setFlags(userId: string, flags: { verified?: boolean; blocked?: boolean }): Promise<void> {
    const set: Partial<Record<'verified' | 'blocked', Bool>> = {};
    if (flags.verified !== undefined) set.verified = b(flags.verified);
    if (flags.blocked !== undefined) set.blocked = b(flags.blocked);
    if (Object.keys(set).length === 0) return;
    await this.db.updateTable('users').set(set).where('id', '=', userId).execute();
  }

  async setPresence(userId: string, status: 'online' | 'offline', lastSeen: number): Promise<void> {
    await this.db.updateTable('users').set({ status, last_seen: lastSeen }).where('id', '=', userId).execute();
  }

  /**
   * Removes the user and everything that is theirs: profile, handle, sessions, tokens,
   * settings, notifications, contacts, chat summaries and the messages they sent.
   * Peers keep their own summaries and the messages they sent (shown as 'Deleted account').
   */
  async deleteUser(userId: string): Promise<void> {
    await this.db.transaction().execute(async (tx: Transaction<Database>) => {
      // First the user's row: changes made for them in flight finish first, later ones
      // find them gone (they take it FOR KEY SHARE first, see people-locks.ts).
      await lockUser(tx, userId, 'delete');
      await tx.deleteFrom('sessions').where('user_id', '=', userId).execute();
      await tx.deleteFrom('email_tokens').where('user_id', '=', userId).execute();
      await tx.deleteFrom('user_settings').where('user_id', '=', userId).execute();
      await tx.deleteFrom('user_notifications').where('user_id', '=', userId).execute();
      await tx.deleteFrom('user_notifications').where('from_id', '=', userId).execute();
      await tx.deleteFrom('contacts').where('user_id', '=', userId).execute();
      await tx.deleteFrom('contacts').where('other_id', '=', userId).execute();
      // Their reactions, and every reaction to their messages, then the messages themselves,
      // chat by chat (every message they sent updated their summary of its chat).
      await tx.deleteFrom('reactions').where('user_id', '=', userId).execute();
      await tx
        .deleteFrom('reactions')
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('messages as m')
              .select('m.id')
              .whereRef('m.chat_id', '=', 'reactions.chat_id')
              .whereRef('m.id', '=', 'reactions.msg_id')
              .where('m.sender_id', '=', userId),
          ),
        )
        .execute();
      await tx
        .deleteFrom('messages')
        .where('chat_id', 'in', (eb) => eb.selectFrom('user_chats').select('chat_id').where('user_id', '=', userId))
        .where('sender_id', '=', userId)
        .execute();
      await tx.deleteFrom('user_chats').where('user_id', '=', userId).execute();
      await tx.deleteFrom('user_updates').where('user_id', '=', userId).execute();
      await deleteKeys(tx, userId);
      await tx.deleteFrom('users').where('id', '=', userId).execute();
    });
  }

  // ---- sessions ------------------------------------------------------------

  async createSession(s: SessionRecord & { userAgent: string | null; ip: string | null }): Promise<void> {
    await this.db
      .insertInto('sessions')
      .values({
        token_hash: s.tokenHash,
        user_id: s.userId,
        created_at: s.createdAt,
        auth_at: s.authAt,
        last_used_at: s.lastUsedAt,
        expires_at: s.expiresAt,
        persistent: b(s.persistent),
        user_agent: s.userAgent?.slice(0, 300) ?? null,
        ip: s.ip,
      })
      .execute();
  }

  async sessionByHash(tokenHash: string): Promise<SessionRecord | null> {
    const r = await this.db.selectFrom('sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
    if (!r) return null;
    return {
      tokenHash: r.token_hash,
      userId: r.user_id,
      createdAt: Number(r.created_at),
      authAt: Number(r.auth_at),
      lastUsedAt: Number(r.last_used_at),
      expiresAt: Number(r.expires_at),
      persistent: r.persistent === 1,
    };
  }

  async touchSession(tokenHash: string, lastUsedAt: number, expiresAt: number): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ last_used_at: lastUsedAt, expires_at: expiresAt })
      .where('token_hash', '=', tokenHash)
      .execute();
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
  }

  /** Ends every session of the user, except `keep` when given. Returns how many ended. */
  async deleteUserSessions(userId: string, keep?: string): Promise<number> {
    let q = this.db.deleteFrom('sessions').where('user_id', '=', userId);
    if (keep) q = q.where('token_hash', '!=', keep);
    const r = await q.executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /** The user's live sessions ("Where you're signed in"). */
  async userSessions(userId: string, now: number) {
    const rows = await this.db
      .selectFrom('sessions')
      .select(['token_hash', 'created_at', 'last_used_at', 'user_agent'])
      .where('user_id', '=', userId)
      .where('expires_at', '>', now)
      .execute();
    return rows.map((r) => ({
      tokenHash: r.token_hash,
      createdAt: Number(r.created_at),
      lastUsedAt: Number(r.last_used_at),
      userAgent: r.user_agent,
    }));
  }

  /** Ends the user's session `tokenHash`; false when they have no such session. */
  async deleteSessionOf(userId: string, tokenHash: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('sessions')
      .where('user_id', '=', userId)
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Of these sessions, the live ones, each with whether its account is blocked. */
  async liveSessions(tokenHashes: string[], now: number): Promise<Map<string, boolean>> {
    if (tokenHashes.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('sessions as s')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .select(['s.token_hash', 'u.blocked'])
      .where('s.token_hash', 'in', tokenHashes)
      .where('s.expires_at', '>', now)
      .execute();
    return new Map(rows.map((r) => [r.token_hash, r.blocked === 1]));
  }

  async deleteExpiredSessions(now: number): Promise<number> {
    const r = await this.db.deleteFrom('sessions').where('expires_at', '<', now).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  // ---- e-mail tokens -------------------------------------------------------

  /** Stores a new token and voids the user's earlier unused ones of the same kind. */
  async createEmailToken(t: EmailToken & { createdAt: number }): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await lockUser(tx, t.userId, 'keep');
      await tx
        .deleteFrom('email_tokens')
        .where('user_id', '=', t.userId)
        .where('kind', '=', t.kind)
        .where('used_at', 'is', null)
        .execute();
      await tx
        .insertInto('email_tokens')
        .values({
          token_hash: t.tokenHash,
          user_id: t.userId,
          kind: t.kind,
          email: t.email,
          created_at: t.createdAt,
          expires_at: t.expiresAt,
          used_at: null,
        })
        .execute();
    });
  }

  /** Marks a live token used, once: a replay or an expired token gives null. */
  async consumeEmailToken(tokenHash: string, kind: EmailTokenKind, now: number): Promise<EmailToken | null> {
    const r = await this.db
      .updateTable('email_tokens')
      .set({ used_at: now })
      .where('token_hash', '=', tokenHash)
      .where('kind', '=', kind)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning(['token_hash', 'user_id', 'kind', 'email', 'expires_at'])
      .executeTakeFirst();
    if (!r) return null;
    return {
      tokenHash: r.token_hash,
      userId: r.user_id,
      kind: r.kind,
      email: r.email,
      expiresAt: Number(r.expires_at),
    };
  }

  // ---- global settings -----------------------------------------------------

  /** The value stored under `key`, storing `candidate` first if there is none (first writer wins). */
  async sharedSetting(key: string, candidate: string): Promise<string> {
    await this.db
      .insertInto('settings')
      .values({ key, value: candidate })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    return (await this.getSetting(key)) ?? candidate;
  }

  async getSetting(key: string): Promise<string | null> {
    const r = await this.db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
    return r?.value ?? null;
  }
}

/**
 * What the administrator reads and changes: the user list with e-mails, the verified
 * and blocked flags, broadcasts, the help link, and the audit log. Each change and its
 * audit entry are written in one transaction; a change nobody would notice (verifying
 * a verified user) writes neither.
 */
import {
  ADMIN_USERS_PAGE,
  type AdminUser,
  type AdminUserFlags,
  AUDIT_PAGE,
  type AuditAction,
  type AuditEntry,
  type AuditPage,
  BROADCASTS_MAX,
  type Broadcast,
  handleKey,
  type PublicUser,
} from '@app/protocol';
import { type Kysely, type Selectable, sql } from 'kysely';
import { newId, newTimeOrderedId } from '../ids.ts';
import { appendLog, type Entry, type LoggedUpdate, toPublicUser } from '../messages/chat-rows.ts';
import { lockUser } from '../people-locks.ts';
import type { Tx } from '../program.ts';
import type { AuditLogTable, Database, NotificationsTable, UsersTable } from '../schema.ts';

/** Who did it: an administrator's account, or the operator's shell (null). */
export type Actor = { id: string; username: string } | null;

/** A user as the operator's shell lists them: the administrator's view and when they were last seen. */
export type ShellUser = AdminUser & { lastSeen: number | null };

export const HELP_LINK_KEY = 'helpLink';
/** The newest message sent before end-to-end encryption (ms; migration 008), if any. */
export const E2EE_SINCE_KEY = 'e2ee_since';

type UserRow = Pick<
  Selectable<UsersTable>,
  'id' | 'username' | 'name' | 'email' | 'email_verified' | 'verified' | 'blocked' | 'created_at' | 'profile_pic'
>;
const ADMIN_COLUMNS = [
  'id',
  'username',
  'name',
  'email',
  'email_verified',
  'verified',
  'blocked',
  'created_at',
  'profile_pic',
] as const;

function toAdminUser(r: UserRow, selfId: string | null): AdminUser {
  return {
    id: r.id,
    username: r.username,
    name: r.name,
    email: r.email,
    emailVerified: r.email_verified === 1,
    verified: r.verified === 1,
    blocked: r.blocked === 1,
    createdAt: Number(r.created_at),
    isSelf: r.id === selfId,
  };
}

function toBroadcastRow(r: Selectable<NotificationsTable>): Broadcast {
  return {
    id: r.id,
    message: r.message,
    videoUrl: r.video_url,
    imageUrl: r.image_url,
    timestamp: Number(r.timestamp),
  };
}

function toAudit(r: Selectable<AuditLogTable>): AuditEntry {
  return {
    id: r.id,
    at: Number(r.at),
    actorId: r.actor_id,
    actorUsername: r.actor_username,
    action: r.action as AuditAction,
    targetId: r.target_id,
    targetLabel: r.target_label,
    detail: r.detail,
  };
}

/** The first words of a broadcast, as the audit log names it. */
function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 60 ? `${flat.slice(0, 57)}...` : flat;
}

function likeNeedle(query: string): string {
  return `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Users whose handle, e-mail or name contains `needle` (a handleKey), any case. */
function matching(needle: string) {
  const like = likeNeedle(needle);
  return sql<boolean>`(username_lower LIKE ${like} ESCAPE '\\' OR email_lower LIKE ${like} ESCAPE '\\' OR lower(name) LIKE ${like} ESCAPE '\\')`;
}

export async function audit(
  tx: Tx,
  actor: Actor,
  action: AuditAction,
  target: { id: string | null; label: string | null },
  detail: string | null,
  now: number,
): Promise<AuditEntry> {
  const row = {
    id: newTimeOrderedId(now),
    at: now,
    actor_id: actor?.id ?? null,
    actor_username: actor?.username ?? null,
    action,
    target_id: target.id,
    target_label: target.label,
    detail,
  };
  await tx.insertInto('audit_log').values(row).execute();
  return toAudit(row);
}

export interface FlagsResult {
  user: AdminUser;
  /** The public profile, when the verified badge changed (everyone is told). */
  publicUser: PublicUser | null;
  /** The block state changed to this. */
  blocked: boolean | null;
  updates: LoggedUpdate[];
}

/** A blocked user's sessions end; the audit detail says how many. */
async function endSessions(tx: Tx, userId: string): Promise<string> {
  const ended = await tx.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
  const n = Number(ended.numDeletedRows);
  return `${n} session${n === 1 ? '' : 's'} ended`;
}

/** Logs a user's new public profile to everyone who has a chat with them or is their contact. */
async function tellPeople(tx: Tx, user: PublicUser, now: number): Promise<LoggedUpdate[]> {
  const chats = await tx.selectFrom('user_chats').select('user_id').where('peer_id', '=', user.id).execute();
  const contacts = await tx.selectFrom('contacts').select('user_id').where('other_id', '=', user.id).execute();
  const audience = new Set([...chats, ...contacts].map((x) => x.user_id));
  audience.delete(user.id);
  const entries: Entry[] = [...audience].map((id) => ({ userId: id, update: { kind: 'peer', user } }));
  return appendLog(tx, entries, now);
}

/** Of the flags asked for, those that change something (null: unchanged). */
function changes(flags: AdminUserFlags, before: { verified: number; blocked: number }) {
  const differs = (want: boolean | undefined, now: number) =>
    want !== undefined && want !== (now === 1) ? want : null;
  return { verified: differs(flags.verified, before.verified), blocked: differs(flags.blocked, before.blocked) };
}

async function applyFlags(
  tx: Tx,
  actor: Actor,
  selfId: string | null,
  userId: string,
  flags: AdminUserFlags,
  now: number,
): Promise<FlagsResult | null> {
  // The user's row first, like every change made for a user (see lockPeople): its
  // sessions go below, and a deletion of the account takes the row first too.
  if (!(await lockUser(tx, userId, 'change'))) return null;
  const before = await tx.selectFrom('users').select(ADMIN_COLUMNS).where('id', '=', userId).executeTakeFirst();
  if (!before) return null;
  const target = { id: userId, label: `@${before.username}` };
  const { verified, blocked } = changes(flags, before);
  const set: { verified?: 0 | 1; blocked?: 0 | 1 } = {};
  if (verified !== null) {
    set.verified = verified ? 1 : 0;
    await audit(tx, actor, verified ? 'user.verify' : 'user.unverify', target, null, now);
  }
  if (blocked !== null) {
    set.blocked = blocked ? 1 : 0;
    const detail = blocked ? await endSessions(tx, userId) : null;
    await audit(tx, actor, blocked ? 'user.block' : 'user.unblock', target, detail, now);
  }
  if (Object.keys(set).length > 0) await tx.updateTable('users').set(set).where('id', '=', userId).execute();
  const after = { ...before, ...set };
  const publicUser = verified !== null ? toPublicUser(after) : null;
  const updates = publicUser ? await tellPeople(tx, publicUser, now) : [];
  return { user: toAdminUser(after, selfId), publicUser, blocked, updates };
}

export class AdminStore {
  readonly db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  // ---- users ---------------------------------------------------------------------------

  /** A page of users by handle; the query matches handle, name or e-mail (any case). */
  async users(
    selfId: string,
    query: string,
    after: string | undefined,
  ): Promise<{
    users: AdminUser[];
    next: string | null;
    total: number;
  }> {
    const needle = handleKey(query);
    let base = this.db.selectFrom('users');
    if (needle) base = base.where(matching(needle));
    let page = base.select([...ADMIN_COLUMNS, 'username_lower']);
    if (after) page = page.where('username_lower', '>', after);
    const [rows, count] = await Promise.all([
      page.orderBy('username_lower').limit(ADMIN_USERS_PAGE).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    const last = rows.at(-1);
    return {
      users: rows.map((r) => toAdminUser(r, selfId)),
      next: rows.length === ADMIN_USERS_PAGE && last ? last.username_lower : null,
      total: Number(count.n),
    };
  }

  /**
   * For the operator's shell (npm run admin -- users): the newest accounts first, those
   * matching `query` as users() matches it, only the blocked ones when asked, with when
   * each was last seen; and how many there are in all.
   */
  async newestUsers(opts: {
    query: string;
    blockedOnly: boolean;
    limit: number;
  }): Promise<{ users: ShellUser[]; total: number }> {
    let base = this.db.selectFrom('users');
    const needle = handleKey(opts.query);
    if (needle) base = base.where(matching(needle));
    if (opts.blockedOnly) base = base.where('blocked', '=', 1);
    const [rows, count] = await Promise.all([
      base
        .select([...ADMIN_COLUMNS, 'last_seen'])
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(opts.limit)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return {
      users: rows.map((r) => ({ ...toAdminUser(r, null), lastSeen: r.last_seen == null ? null : Number(r.last_seen) })),
      total: Number(count.n),
    };
  }

  /**
   * Sets the verified and/or blocked flag. Blocking ends the user's sessions in the same
   * transaction; a changed badge is logged to everyone who has a chat with the user or
   * is their contact. Null when there is no such user.
   */
  async setFlags(actor: Actor, selfId: string | null, userId: string, flags: AdminUserFlags, now: number) {
    return this.db.transaction().execute((tx) => applyFlags(tx, actor, selfId, userId, flags, now));
  }

  // ---- broadcasts ----------------------------------------------------------------------

  async broadcasts(): Promise<Broadcast[]> {
    const rows = await this.db
      .selectFrom('notifications')
      .selectAll()
      .orderBy('timestamp', 'desc')
      .orderBy('id', 'desc')
      .limit(BROADCASTS_MAX)
      .execute();
    return rows.map(toBroadcastRow);
  }

  /** `actor` null: sent from the operator's shell (its from_id is then empty). */
  async createBroadcast(
    actor: Actor,
    input: { message: string; videoUrl: string | null; imageUrl: string | null },
    now: number,
  ): Promise<Broadcast> {
    return this.db.transaction().execute(async (tx) => {
      const row = {
        id: newId(),
        message: input.message,
        video_url: input.videoUrl,
        image_url: input.imageUrl,
        timestamp: now,
        from_id: actor?.id ?? '',
      };
      await tx.insertInto('notifications').values(row).execute();
      await audit(tx, actor, 'broadcast.create', { id: row.id, label: excerpt(row.message) }, null, now);
      return toBroadcastRow(row);
    });
  }

  /** Replaces a broadcast's content and gives it a new timestamp (it is news again). */
  async updateBroadcast(
    actor: { id: string; username: string },
    id: string,
    input: { message: string; videoUrl: string | null; imageUrl: string | null },
    now: number,
  ): Promise<Broadcast | null> {
    return this.db.transaction().execute(async (tx) => {
      const row = await tx
        .updateTable('notifications')
        .set({ message: input.message, video_url: input.videoUrl, image_url: input.imageUrl, timestamp: now })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      if (!row) return null;
      await audit(tx, actor, 'broadcast.update', { id, label: excerpt(row.message) }, null, now);
      return toBroadcastRow(row);
    });
  }

  async deleteBroadcast(actor: { id: string; username: string }, id: string, now: number): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const row = await tx.deleteFrom('notifications').where('id', '=', id).returningAll().executeTakeFirst();
      if (!row) return false;
      await audit(tx, actor, 'broadcast.delete', { id, label: excerpt(row.message) }, null, now);
      return true;
    });
  }

  // ---- settings ------------------------------------------------------------------------

  /** Sets (or, with null, clears) the help link. Returns false when it was already so. */
  async setHelpLink(actor: Actor, link: string | null, now: number): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const old = await tx.selectFrom('settings').select('value').where('key', '=', HELP_LINK_KEY).executeTakeFirst();
      if ((old?.value ?? null) === link) return false;
      if (link === null) await tx.deleteFrom('settings').where('key', '=', HELP_LINK_KEY).execute();
      else
        await tx
          .insertInto('settings')
          .values({ key: HELP_LINK_KEY, value: link })
          .onConflict((oc) => oc.column('key').doUpdateSet({ value: link }))
          .execute();
      await audit(tx, actor, 'settings.helpLink', { id: null, label: null }, link ?? 'cleared', now);
      return true;
    });
  }

  // ---- audit log -----------------------------------------------------------------------

  /** Newest first, a page at a time; `before` is the previous page's `next`. */
  async auditLog(before?: string): Promise<AuditPage> {
    let q = this.db.selectFrom('audit_log').selectAll();
    if (before) {
      const [atText, id] = before.split(':');
      const at = Number(atText);
      if (Number.isSafeInteger(at) && id) {
        q = q.where((eb) => eb.or([eb('at', '<', at), eb.and([eb('at', '=', at), eb('id', '<', id)])]));
      }
    }
    const rows = await q.orderBy('at', 'desc').orderBy('id', 'desc').limit(AUDIT_PAGE).execute();
    const entries = rows.map(toAudit);
    const last = entries.at(-1);
    return { entries, next: entries.length === AUDIT_PAGE && last ? `${last.at}:${last.id}` : null };
  }

  /** An action taken from the operator's shell (npm run admin). */
  async recordShell(action: AuditAction, user: { id: string; username: string }, now: number): Promise<void> {
    await audit(this.db, null, action, { id: user.id, label: `@${user.username}` }, null, now);
  }
}

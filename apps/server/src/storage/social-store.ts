/**
 * Profile changes, privacy settings, the chat PIN and its session grants, archive and
 * lock flags, contact requests and notifications. Changes are logged to the users they
 * concern in the same transaction, like messages.
 */
import {
  type Access,
  type ChatSummary,
  chatIdOf,
  isSafeHttpUrl,
  type NotificationItem,
  PIN_FAILURES_MAX,
  PIN_LOCKOUT_MS,
  PRIVACY_DEFAULTS,
  type Privacy,
  type PublicUser,
  SOCIAL_MSG,
  videoEmbedUrl,
} from '@app/protocol';
import type { Kysely, Selectable } from 'kysely';
import { appendLog, ChatError, type Entry, insertMessage, type LoggedUpdate, summaryOf, type Tx } from './chat-rows.ts';
import { newId } from './ids.ts';
import { lockPeople } from './people-locks.ts';
import type { Database, NotificationsTable, UserNotificationsTable } from './schema.ts';

/** Newest items of each kind /notifications shows. */
export const NOTIFICATIONS_MAX = 200;

export interface PinState {
  hash: string | null;
  failures: number;
  lockedUntil: number | null;
}

function toPersonal(r: Selectable<UserNotificationsTable>): NotificationItem {
  if (r.type === 'request' && r.from_id) {
    return {
      type: 'request',
      id: r.id,
      fromId: r.from_id,
      fromUsername: r.from_username ?? '',
      message: r.message,
      timestamp: Number(r.timestamp),
      read: r.read === 1,
    };
  }
  return { type: 'info', id: r.id, message: r.message, timestamp: Number(r.timestamp), read: r.read === 1 };
}

/** A broadcast as users see it; URLs that are not http(s) or not a known video host are dropped. */
export function toBroadcast(r: Selectable<NotificationsTable>, seenAt: number): NotificationItem {
  return {
    type: 'admin',
    id: r.id,
    message: r.message,
    imageUrl: r.image_url && isSafeHttpUrl(r.image_url) ? r.image_url : null,
    videoUrl: r.video_url && videoEmbedUrl(r.video_url) ? r.video_url : null,
    timestamp: Number(r.timestamp),
    read: Number(r.timestamp) <= seenAt,
  };
}

/** The newest pending contact request from `from` to `to`. */
export async function pendingRequest(tx: Tx, from: string, to: string) {
  return tx
    .selectFrom('user_notifications')
    .selectAll()
    .where('user_id', '=', to)
    .where('from_id', '=', from)
    .where('type', '=', 'request')
    .orderBy('timestamp', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * May `me` message `peer`? Yes unless the peer takes messages from contacts only and
 * `me` is neither their contact nor someone they have written to.
 */
export async function accessOf(tx: Tx, me: string, peer: string): Promise<Access> {
  const settings = await tx
    .selectFrom('user_settings')
    .select('require_request')
    .where('user_id', '=', peer)
    .executeTakeFirst();
  if ((settings?.require_request ?? 0) === 0) return { state: 'open' };
  const contact = await tx
    .selectFrom('contacts')
    .select('other_id')
    .where('user_id', '=', peer)
    .where('other_id', '=', me)
    .executeTakeFirst();
  if (contact) return { state: 'open' };
  const wrote = await tx
    .selectFrom('messages')
    .select('id')
    .where('chat_id', '=', chatIdOf(me, peer))
    .where('sender_id', '=', peer)
    .limit(1)
    .executeTakeFirst();
  if (wrote) return { state: 'open' };
  const pending = await pendingRequest(tx, me, peer);
  if (pending) return { state: 'pending', message: pending.message, timestamp: Number(pending.timestamp) };
  return { state: 'request' };
}

/** The stranger's first message becomes a contact request to `to`. */
export async function createRequest(
  tx: Tx,
  from: string,
  to: string,
  msgId: string,
  text: string,
  now: number,
): Promise<{ request: Access; updates: LoggedUpdate[] }> {
  const sender = await tx.selectFrom('users').select('username').where('id', '=', from).executeTakeFirst();
  if (!sender) throw new ChatError('not_found', 'Account not found');
  const row = {
    id: newId(),
    user_id: to,
    type: 'request' as const,
    from_id: from,
    from_username: sender.username,
    message: text,
    timestamp: now,
    read: 0 as const,
    msg_id: msgId,
  };
  await tx.insertInto('user_notifications').values(row).execute();
  const request: Access = { state: 'pending', message: text, timestamp: now };
  const updates = await appendLog(
    tx,
    [
      { userId: to, update: { kind: 'notification', notification: toPersonal(row) } },
      { userId: from, update: { kind: 'access', peerId: to, access: request } },
    ],
    now,
  );
  return { request, updates };
}

export class SocialStore {
  readonly db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  access(me: string, peer: string): Promise<Access> {
    return accessOf(this.db, me, peer);
  }

  // ---- profile ---------------------------------------------------------------------

  /**
   * Saves the editable profile fields and tells everyone who has a chat with the user,
   * or is their contact, about the new public profile.
   */
  async updateProfile(
    userId: string,
    p: { name: string; phone: string; age: number; profilePic: string | null },
    now: number,
  ): Promise<{ user: PublicUser; updates: LoggedUpdate[] } | null> {
    return this.db.transaction().execute(async (tx) => {
      const r = await tx
        .updateTable('users')
        .set({ name: p.name, phone: p.phone, age: p.age, profile_pic: p.profilePic, updated_at: now })
        .where('id', '=', userId)
        .returning(['id', 'username', 'name', 'profile_pic', 'verified'])
        .executeTakeFirst();
      if (!r) return null;
      const user: PublicUser = {
        id: r.id,
        username: r.username,
        name: r.name,
        profilePic: r.profile_pic,
        verified: r.verified === 1,
      };
      const chats = await tx.selectFrom('user_chats').select('user_id').where('peer_id', '=', userId).execute();
      const contacts = await tx.selectFrom('contacts').select('user_id').where('other_id', '=', userId).execute();
      const audience = new Set([...chats, ...contacts].map((x) => x.user_id));
      audience.delete(userId);
      const entries: Entry[] = [...audience].map((id) => ({ userId: id, update: { kind: 'peer', user } }));
      return { user, updates: await appendLog(tx, entries, now) };
    });
  }

  // ---- privacy ---------------------------------------------------------------------

  async privacy(userId: string): Promise<Privacy> {
    const r = await this.db.selectFrom('user_settings').selectAll().where('user_id', '=', userId).executeTakeFirst();
    if (!r) return { ...PRIVACY_DEFAULTS };
    return {
      readReceipts: r.read_receipts === 1,
      lastSeen: r.last_seen === 1,
      requireRequest: r.require_request === 1,
    };
  }

  async setPrivacy(userId: string, p: Privacy, now: number): Promise<LoggedUpdate[]> {
    return this.db.transaction().execute(async (tx) => {
      await lockPeople(tx, userId);
      const row = {
        read_receipts: p.readReceipts ? (1 as const) : (0 as const),
        last_seen: p.lastSeen ? (1 as const) : (0 as const),
        require_request: p.requireRequest ? (1 as const) : (0 as const),
      };
      await tx
        .insertInto('user_settings')
        .values({ user_id: userId, ...row })
        .onConflict((oc) => oc.column('user_id').doUpdateSet(row))
        .execute();
      return appendLog(tx, [{ userId, update: { kind: 'privacy', privacy: p } }], now);
    });
  }

  /** Whether each of these users shows their last-seen time. */
  async showsLastSeen(userId: string): Promise<boolean> {
    const r = await this.db
      .selectFrom('user_settings')
      .select('last_seen')
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return (r?.last_seen ?? 1) === 1;
  }

  // ---- PIN -------------------------------------------------------------------------

  async pinState(userId: string): Promise<PinState> {
    const r = await this.db
      .selectFrom('users')
      .select(['pin_hash', 'pin_failures', 'pin_locked_until'])
      .where('id', '=', userId)
      .executeTakeFirst();
    return {
      hash: r?.pin_hash ?? null,
      failures: r?.pin_failures ?? 0,
      lockedUntil: r?.pin_locked_until == null ? null : Number(r.pin_locked_until),
    };
  }

  /**
   * Sets (or with null removes) the PIN. Removing it unlocks the user's locked chats,
   * which nothing could open any more.
   */
  async setPin(userId: string, hash: string | null, now: number): Promise<LoggedUpdate[]> {
    return this.db.transaction().execute(async (tx) => {
      await tx
        .updateTable('users')
        .set({ pin_hash: hash, pin_failures: 0, pin_locked_until: null })
        .where('id', '=', userId)
        .execute();
      if (hash !== null) return [];
      const locked = await tx
        .updateTable('user_chats')
        .set({ locked: 0 })
        .where('user_id', '=', userId)
        .where('locked', '=', 1)
        .returning('chat_id')
        .execute();
      const entries: Entry[] = [];
      for (const { chat_id } of locked) {
        const chat = await summaryOf(tx, userId, chat_id);
        if (chat) entries.push({ userId, update: { kind: 'chat', chat } });
      }
      return appendLog(tx, entries, now);
    });
  }

  /**
   * Reserves one PIN check before the PIN is judged, so that concurrent checks are
   * counted too: at most PIN_FAILURES_MAX checks are ever in flight or failed in a row.
   * Refused (with the lock-out's end, if it has begun) while locked out or when that many
   * are already reserved; otherwise returns this check's number in the row.
   */
  async reservePinCheck(
    userId: string,
    now: number,
  ): Promise<{ ok: true; attempt: number } | { ok: false; lockedUntil: number | null }> {
    const r = await this.db
      .updateTable('users')
      .set((eb) => ({ pin_failures: eb('pin_failures', '+', 1), pin_locked_until: null }))
      .where('id', '=', userId)
      .where('pin_failures', '<', PIN_FAILURES_MAX)
      .where((eb) => eb.or([eb('pin_locked_until', 'is', null), eb('pin_locked_until', '<=', now)]))
      .returning('pin_failures')
      .executeTakeFirst();
    if (r) return { ok: true, attempt: r.pin_failures };
    const state = await this.pinState(userId);
    return { ok: false, lockedUntil: state.lockedUntil !== null && state.lockedUntil > now ? state.lockedUntil : null };
  }

  /**
   * A reserved check was wrong. The PIN_FAILURES_MAX-th in a row starts the lock-out of
   * PIN_LOCKOUT_MS (and clears the count for after it); returns until when, or null.
   */
  async pinCheckFailed(userId: string, attempt: number, now: number): Promise<number | null> {
    if (attempt < PIN_FAILURES_MAX) return null;
    const lockedUntil = now + PIN_LOCKOUT_MS;
    await this.db
      .updateTable('users')
      .set({ pin_failures: 0, pin_locked_until: lockedUntil })
      .where('id', '=', userId)
      .execute();
    return lockedUntil;
  }

  /** A reserved check could not be judged (an error): it does not count. */
  async pinCheckAbandoned(userId: string): Promise<void> {
    await this.db
      .updateTable('users')
      .set((eb) => ({ pin_failures: eb('pin_failures', '-', 1) }))
      .where('id', '=', userId)
      .where('pin_failures', '>', 0)
      .execute();
  }

  /**
   * A reserved check was right: the count starts again, unless a lock-out began while it
   * was judged (a concurrent fifth failure): then it is refused like any other (false).
   */
  async pinCheckPassed(userId: string, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('users')
      .set({ pin_failures: 0 })
      .where('id', '=', userId)
      .where((eb) => eb.or([eb('pin_locked_until', 'is', null), eb('pin_locked_until', '<=', now)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Locked chats open to this session until `until` (0 closes them again). */
  async grantSession(tokenHash: string, until: number): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ pin_unlocked_until: until })
      .where('token_hash', '=', tokenHash)
      .execute();
  }

  async sessionGrant(tokenHash: string): Promise<number> {
    const r = await this.db
      .selectFrom('sessions')
      .select('pin_unlocked_until')
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return r?.pin_unlocked_until == null ? 0 : Number(r.pin_unlocked_until);
  }

  // ---- archive and lock ------------------------------------------------------------

  /** Chat ids the user has locked. */
  async lockedChats(userId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('user_chats')
      .select('chat_id')
      .where('user_id', '=', userId)
      .where('locked', '=', 1)
      .execute();
    return rows.map((r) => r.chat_id);
  }

  /** Archives, locks or undoes either on the user's own summary. Locking needs a PIN. */
  async setChatFlags(
    userId: string,
    peerId: string,
    flags: { archived?: boolean; locked?: boolean },
    now: number,
    session: string | null = null,
  ): Promise<{ chat: ChatSummary; updates: LoggedUpdate[] }> {
    const chatId = chatIdOf(userId, peerId);
    return this.db.transaction().execute(async (tx) => {
      await lockPeople(tx, userId, userId, session, now);
      const current = await summaryOf(tx, userId, chatId);
      if (!current) throw new ChatError('not_found', 'Chat not found');
      if (flags.locked === true && !current.locked) {
        const pin = await tx.selectFrom('users').select('pin_hash').where('id', '=', userId).executeTakeFirst();
        if (!pin?.pin_hash) throw new ChatError('pin_required', SOCIAL_MSG.pinRequired);
      }
      const set: { archived?: 0 | 1; locked?: 0 | 1 } = {};
      if (flags.archived !== undefined) set.archived = flags.archived ? 1 : 0;
      if (flags.locked !== undefined) set.locked = flags.locked ? 1 : 0;
      await tx.updateTable('user_chats').set(set).where('user_id', '=', userId).where('chat_id', '=', chatId).execute();
      const chat = (await summaryOf(tx, userId, chatId)) as ChatSummary;
      if (chat.archived === current.archived && chat.locked === current.locked) return { chat, updates: [] };
      return { chat, updates: await appendLog(tx, [{ userId, update: { kind: 'chat', chat } }], now) };
    });
  }

  // ---- notifications ---------------------------------------------------------------

  private async seenAt(tx: Tx, userId: string): Promise<number> {
    const r = await tx.selectFrom('users').select('notifications_seen_at').where('id', '=', userId).executeTakeFirst();
    return r?.notifications_seen_at == null ? 0 : Number(r.notifications_seen_at);
  }

  /** The merged list, newest first, and the bell count (unread personal + unseen broadcasts). */
  async notifications(userId: string): Promise<{ items: NotificationItem[]; unseen: number }> {
    const seenAt = await this.seenAt(this.db, userId);
    const personal = await this.db
      .selectFrom('user_notifications')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('timestamp', 'desc')
      .limit(NOTIFICATIONS_MAX)
      .execute();
    const broadcasts = await this.db
      .selectFrom('notifications')
      .selectAll()
      .orderBy('timestamp', 'desc')
      .limit(NOTIFICATIONS_MAX)
      .execute();
    const items = [...personal.map(toPersonal), ...broadcasts.map((b) => toBroadcast(b, seenAt))].sort(
      (a, b) => b.timestamp - a.timestamp || (a.id < b.id ? 1 : -1),
    );
    return { items, unseen: await this.unseen(userId, seenAt) };
  }

  async unseen(userId: string, seenAt?: number): Promise<number> {
    const since = seenAt ?? (await this.seenAt(this.db, userId));
    const p = await this.db
      .selectFrom('user_notifications')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('user_id', '=', userId)
      .where('read', '=', 0)
      .executeTakeFirst();
    const b = await this.db
      .selectFrom('notifications')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('timestamp', '>', since)
      .executeTakeFirst();
    // The bell never counts more than the list can show.
    return Math.min(NOTIFICATIONS_MAX, Number(p?.n ?? 0)) + Math.min(NOTIFICATIONS_MAX, Number(b?.n ?? 0));
  }

  /** The user opened /notifications: personal items are read, broadcasts so far seen. */
  async markSeen(userId: string, now: number, session: string | null = null): Promise<LoggedUpdate[]> {
    return this.db.transaction().execute(async (tx) => {
      await lockPeople(tx, userId, userId, session, now);
      const seen = Math.max(now, await this.seenAt(tx, userId));
      await tx
        .updateTable('user_notifications')
        .set({ read: 1 })
        .where('user_id', '=', userId)
        .where('read', '=', 0)
        .execute();
      await tx.updateTable('users').set({ notifications_seen_at: seen }).where('id', '=', userId).execute();
      return appendLog(tx, [{ userId, update: { kind: 'notificationsSeen', at: seen } }], now);
    });
  }

  /**
   * Accept: contacts both ways, the request's message delivered as the first message,
   * the requester told. Decline: the request is only removed. Either way it is gone.
   */
  async respondRequest(
    userId: string,
    notificationId: string,
    accept: boolean,
    now: number,
    session: string | null = null,
  ): Promise<LoggedUpdate[]> {
    return this.db.transaction().execute(async (tx) => {
      const n = await tx
        .selectFrom('user_notifications')
        .selectAll()
        .where('id', '=', notificationId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (n?.type !== 'request') throw new ChatError('not_found', 'Request not found');
      // Both people stay until this commits (see lockPeople).
      await lockPeople(tx, userId, n.from_id ?? userId, session, now);
      await tx.deleteFrom('user_notifications').where('id', '=', n.id).execute();
      const entries: Entry[] = [{ userId, update: { kind: 'notificationRemoved', id: n.id } }];
      const from = n.from_id
        ? await tx.selectFrom('users').select(['id', 'username']).where('id', '=', n.from_id).executeTakeFirst()
        : undefined;
      if (accept && from) {
        for (const [a, b] of [
          [userId, from.id],
          [from.id, userId],
        ] as const) {
          await tx
            .insertInto('contacts')
            .values({ user_id: a, other_id: b, created_at: now })
            .onConflict((oc) => oc.columns(['user_id', 'other_id']).doNothing())
            .execute();
        }
        const msgId = n.msg_id ?? newId();
        const exists = await tx
          .selectFrom('messages')
          .select('id')
          .where('chat_id', '=', chatIdOf(userId, from.id))
          .where('id', '=', msgId)
          .executeTakeFirst();
        if (!exists) entries.push(...(await insertMessage(tx, from.id, userId, msgId, n.message, now)).entries);
        const me = await tx.selectFrom('users').select('username').where('id', '=', userId).executeTakeFirst();
        const info = {
          id: newId(),
          user_id: from.id,
          type: 'info' as const,
          from_id: userId,
          from_username: me?.username ?? null,
          message: `@${me?.username ?? 'someone'} accepted your message request. ${SOCIAL_MSG.requestAccepted}.`,
          timestamp: now,
          read: 0 as const,
          msg_id: null,
        };
        await tx.insertInto('user_notifications').values(info).execute();
        entries.push(
          { userId: from.id, update: { kind: 'notification', notification: toPersonal(info) } },
          { userId: from.id, update: { kind: 'access', peerId: userId, access: { state: 'open' } } },
        );
      } else if (from) {
        // Declined: the requester may ask again (their chat stops saying "pending").
        entries.push({
          userId: from.id,
          update: { kind: 'access', peerId: userId, access: await accessOf(tx, from.id, userId) },
        });
      }
      return appendLog(tx, entries, now);
    });
  }
}

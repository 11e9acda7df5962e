/**
 * Notifications: the merged list of a user's personal items (requests and news about
 * them) and the administrator's broadcasts, the bell count, marking them seen, and
 * answering a contact request.
 */
import { chatIdOf, isSafeHttpUrl, type NotificationItem, SOCIAL_MSG, videoEmbedUrl } from '@app/protocol';
import type { Kysely, Selectable } from 'kysely';
import { newId } from '../ids.ts';
import { appendLog, ChatError, type Entry, type LoggedUpdate } from '../messages/chat-rows.ts';
import { insertMessage } from '../messages/insert-message.ts';
import { lockPeople } from '../people-locks.ts';
import type { Tx } from '../program.ts';
import type { Database, NotificationsTable } from '../schema.ts';
import { accessOf, toPersonal } from './requests.ts';

/** Newest items of each kind /notifications shows. */
export const NOTIFICATIONS_MAX = 200;

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

/** A new or edited broadcast as every open tab is pushed it (unread, for all). */
export function broadcastItem(b: {
  id: string;
  message: string;
  videoUrl: string | null;
  imageUrl: string | null;
  timestamp: number;
}): NotificationItem {
  const row = {
    id: b.id,
    message: b.message,
    video_url: b.videoUrl,
    image_url: b.imageUrl,
    timestamp: b.timestamp,
    from_id: '',
  };
  return toBroadcast(row, 0);
}

export class NotificationStore {
  readonly db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

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
        // The same sealed text becomes the message (same id, so the same associated data).
        const body = { text: n.message, sealed: n.sealed === 1 };
        // A text from before encryption that the operator purged becomes no message at all.
        const purged = n.sealed === 0 && n.message === '';
        if (!exists && !purged) {
          const chatId = chatIdOf(userId, from.id);
          const send = { chatId, msgId, senderId: from.id, recipientId: userId, body, now };
          entries.push(...(await insertMessage(tx, send)).entries);
        }
        const me = await tx.selectFrom('users').select('username').where('id', '=', userId).executeTakeFirst();
        const info = {
          id: newId(),
          user_id: from.id,
          type: 'info' as const,
          from_id: userId,
          from_username: me?.username ?? null,
          message: `@${me?.username ?? 'someone'} accepted your message request. ${SOCIAL_MSG.requestAccepted}.`,
          sealed: 0 as const,
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

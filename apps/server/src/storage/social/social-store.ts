/**
 * Profile changes, privacy settings, who may message whom, and the archive and lock
 * flags of a user's chats. Changes are logged to the users they concern in the same
 * transaction, like messages. (The PIN: pin-store.ts; notifications and answering
 * requests: notification-store.ts; requests themselves: requests.ts.)
 */
import {
  type Access,
  type ChatSummary,
  chatIdOf,
  PRIVACY_DEFAULTS,
  type Privacy,
  type PublicUser,
} from '@app/protocol';
import type { Kysely } from 'kysely';
import { appendLog, ChatError, type Entry, type LoggedUpdate, summaryOf } from '../messages/chat-rows.ts';
import { lockPeople } from '../people-locks.ts';
import type { Database } from '../schema.ts';
import { type ChatFlags, flagChanges, sameFlags } from './chat-marks.ts';
import { accessOf } from './requests.ts';

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

  /**
   * Archives, locks, pins, mutes or marks unread the user's own summary, or undoes any
   * (protocol chat-flags.ts). Locking needs a PIN; a chat archived or locked is unpinned,
   * and cannot be pinned; at most PINNED_CHATS_MAX are pinned, counted in the transaction
   * that pins once it holds the user's row (two pins at once count one after the other).
   */
  async setChatFlags(
    userId: string,
    peerId: string,
    flags: ChatFlags,
    now: number,
    session: string | null = null,
  ): Promise<{ chat: ChatSummary; updates: LoggedUpdate[] }> {
    const chatId = chatIdOf(userId, peerId);
    return this.db.transaction().execute(async (tx) => {
      await lockPeople(tx, userId, userId, session, now);
      const current = await summaryOf(tx, userId, chatId);
      if (!current) throw new ChatError('not_found', 'Chat not found');
      const set = await flagChanges(tx, userId, current, flags, now);
      if (Object.keys(set).length > 0) {
        await tx
          .updateTable('user_chats')
          .set(set)
          .where('user_id', '=', userId)
          .where('chat_id', '=', chatId)
          .execute();
      }
      const chat = (await summaryOf(tx, userId, chatId)) as ChatSummary;
      if (sameFlags(chat, current)) return { chat, updates: [] };
      return { chat, updates: await appendLog(tx, [{ userId, update: { kind: 'chat', chat } }], now) };
    });
  }
}

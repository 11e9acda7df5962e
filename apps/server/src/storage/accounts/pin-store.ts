/**
 * The chat PIN: its hash, the count of wrong checks and the lock-out they start, and the
 * PIN grants that open a session's locked chats for a while.
 */
import { PIN_FAILURES_MAX, PIN_LOCKOUT_MS } from '@app/protocol';
import type { Kysely } from 'kysely';
import { appendLog, type Entry, type LoggedUpdate, summaryOf } from '../messages/chat-rows.ts';
import type { Database } from '../schema.ts';

export interface PinState {
  hash: string | null;
  failures: number;
  lockedUntil: number | null;
}

export class PinStore {
  readonly db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

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
}

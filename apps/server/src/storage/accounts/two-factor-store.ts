/**
 * Two-step sign-in's rows (migration 017, auth/two-factor-routes.ts): an account's
 * authenticator app secret (sealed), passkeys, recovery codes (hashed), and the sign-ins
 * waiting for their second step. Counting an attempt and using a code are single statements,
 * so concurrent tries (several processes) each count, and a code or a time step is taken once.
 */
import type { Kysely } from 'kysely';
import { lockUser } from '../people-locks.ts';
import type { Database } from '../schema.ts';

export interface Pending {
  userId: string;
  login: string;
  remember: boolean;
  attempts: number;
  challenge: string | null;
}

export interface Passkey {
  id: string;
  userId: string;
  publicKey: string;
  counter: number;
  transports: string[];
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

export class TwoFactorStore {
  private readonly db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  // ---- the authenticator app -----------------------------------------------------------

  /** The sealed secret and whether it was confirmed (null: none). */
  async totp(userId: string): Promise<{ secret: string; confirmed: boolean; lastStep: number } | null> {
    const r = await this.db.selectFrom('user_totp').selectAll().where('user_id', '=', userId).executeTakeFirst();
    return r ? { secret: r.secret, confirmed: r.confirmed === 1, lastStep: Number(r.last_step) } : null;
  }

  /** A new secret, not confirmed yet (in place of an unconfirmed one; a confirmed one stays until removed). */
  async startTotp(userId: string, sealed: string, now: number): Promise<boolean> {
    const r = await this.db
      .insertInto('user_totp')
      .values({ user_id: userId, secret: sealed, confirmed: 0, last_step: 0, created_at: now })
      .onConflict((oc) =>
        oc
          .column('user_id')
          .doUpdateSet({ secret: sealed, created_at: now, last_step: 0 })
          .where('user_totp.confirmed', '=', 0),
      )
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  /**
   * Takes time step `step` for this account's secret (confirming it if `confirm`): false when
   * that step or a later one was taken before (a code is good once).
   */
  async takeStep(userId: string, step: number, confirm: boolean): Promise<boolean> {
    const r = await this.db
      .updateTable('user_totp')
      .set({ last_step: step, ...(confirm ? { confirmed: 1 as const } : {}) })
      .where('user_id', '=', userId)
      .where('last_step', '<', step)
      .where('confirmed', '=', confirm ? 0 : 1)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /**
   * Removes one way (the app, or a passkey), under the account's row lock so two removals at
   * once count each other: `keepOne` (REQUIRE_2FA) refuses the last. With none left, the
   * recovery codes go too.
   */
  removeWay(
    userId: string,
    way: { totp: true } | { passkey: string },
    keepOne: boolean,
  ): Promise<'removed' | 'last' | 'none'> {
    return this.db.transaction().execute(async (tx) => {
      await lockUser(tx, userId, 'change');
      const totp = await tx
        .selectFrom('user_totp')
        .select('user_id')
        .where('user_id', '=', userId)
        .where('confirmed', '=', 1)
        .executeTakeFirst();
      const passkeys = await tx.selectFrom('user_passkeys').select('id').where('user_id', '=', userId).execute();
      const there = 'totp' in way ? !!totp : passkeys.some((p) => p.id === way.passkey);
      if (!there) return 'none';
      if (keepOne && (totp ? 1 : 0) + passkeys.length <= 1) return 'last';
      if ('totp' in way) await tx.deleteFrom('user_totp').where('user_id', '=', userId).execute();
      else await tx.deleteFrom('user_passkeys').where('user_id', '=', userId).where('id', '=', way.passkey).execute();
      if ((totp ? 1 : 0) + passkeys.length === 1)
        await tx.deleteFrom('user_recovery_codes').where('user_id', '=', userId).execute();
      return 'removed';
    });
  }

  // ---- passkeys --------------------------------------------------------------------------

  async passkeys(userId: string): Promise<Passkey[]> {
    const rows = await this.db
      .selectFrom('user_passkeys')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      userId: r.user_id,
      publicKey: r.public_key,
      counter: Number(r.counter),
      transports: r.transports ? r.transports.split(',') : [],
      name: r.name,
      createdAt: Number(r.created_at),
      lastUsedAt: r.last_used_at === null ? null : Number(r.last_used_at),
    }));
  }

  /** A new passkey; false when that credential is registered already (to anyone). */
  async addPasskey(p: Omit<Passkey, 'lastUsedAt'>): Promise<boolean> {
    const r = await this.db
      .insertInto('user_passkeys')
      .values({
        id: p.id,
        user_id: p.userId,
        public_key: p.publicKey,
        counter: p.counter,
        transports: p.transports.join(','),
        name: p.name,
        created_at: p.createdAt,
        last_used_at: null,
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  /** A passkey was used: its signature counter moves on (only forward), and when. */
  async usedPasskey(id: string, counter: number, now: number): Promise<void> {
    await this.db.updateTable('user_passkeys').set({ last_used_at: now }).where('id', '=', id).execute();
    await this.db
      .updateTable('user_passkeys')
      .set({ counter })
      .where('id', '=', id)
      .where('counter', '<', counter)
      .execute();
  }

  /** A registration's challenge (in place of an earlier one of this account's). */
  async setPasskeyChallenge(userId: string, challenge: string, expiresAt: number): Promise<void> {
    await this.db
      .insertInto('passkey_challenges')
      .values({ user_id: userId, challenge, expires_at: expiresAt })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ challenge, expires_at: expiresAt }))
      .execute();
  }

  /** Takes the registration's challenge (once), unless it expired. */
  async takePasskeyChallenge(userId: string, now: number): Promise<string | null> {
    const r = await this.db
      .deleteFrom('passkey_challenges')
      .where('user_id', '=', userId)
      .returning(['challenge', 'expires_at'])
      .executeTakeFirst();
    return r && Number(r.expires_at) > now ? r.challenge : null;
  }

  // ---- recovery codes ----------------------------------------------------------------------

  /** The unused codes' hashes, by number. */
  async recoveryHashes(userId: string): Promise<{ n: number; hash: string }[]> {
    const rows = await this.db
      .selectFrom('user_recovery_codes')
      .select(['n', 'code_hash'])
      .where('user_id', '=', userId)
      .where('used_at', 'is', null)
      .execute();
    return rows.map((r) => ({ n: r.n, hash: r.code_hash }));
  }

  /** A new set in place of every old one. */
  async replaceRecoveryCodes(userId: string, hashes: readonly string[]): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.deleteFrom('user_recovery_codes').where('user_id', '=', userId).execute();
      if (hashes.length === 0) return;
      await tx
        .insertInto('user_recovery_codes')
        .values(hashes.map((h, n) => ({ user_id: userId, n, code_hash: h, used_at: null })))
        .execute();
    });
  }

  /** Uses code `n`: false when it was used meanwhile (by a concurrent sign-in). */
  async useRecoveryCode(userId: string, n: number, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('user_recovery_codes')
      .set({ used_at: now })
      .where('user_id', '=', userId)
      .where('n', '=', n)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  // ---- sign-ins waiting for their second step --------------------------------------------

  async addPending(tokenHash: string, p: Omit<Pending, 'attempts'>, expiresAt: number): Promise<void> {
    await this.db
      .insertInto('pending_sign_ins')
      .values({
        token_hash: tokenHash,
        user_id: p.userId,
        login: p.login,
        remember: p.remember ? 1 : 0,
        challenge: p.challenge,
        expires_at: expiresAt,
      })
      .execute();
  }

  /**
   * Counts an attempt at the second step before it is judged, and answers what the sign-in
   * is; null when there is none, it expired, or it had its last attempt (then it is gone).
   */
  async attempt(tokenHash: string, maxAttempts: number, now: number): Promise<Pending | null> {
    const r = await this.db
      .updateTable('pending_sign_ins')
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('token_hash', '=', tokenHash)
      .where('expires_at', '>', now)
      .where('attempts', '<', maxAttempts)
      .returningAll()
      .executeTakeFirst();
    if (!r) {
      await this.endPending(tokenHash);
      return null;
    }
    return {
      userId: r.user_id,
      login: r.login,
      remember: r.remember === 1,
      attempts: Number(r.attempts),
      challenge: r.challenge,
    };
  }

  /** Ends a pending sign-in: true for the one request that ended it (a token passes once). */
  async endPending(tokenHash: string): Promise<boolean> {
    const r = await this.db.deleteFrom('pending_sign_ins').where('token_hash', '=', tokenHash).executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  }

  async deleteExpiredPending(now: number): Promise<void> {
    await this.db.deleteFrom('pending_sign_ins').where('expires_at', '<=', now).execute();
  }
}

/** Web Push subscriptions, one per session (migration 009). */
import type { PushSubscriptionInput } from '@app/protocol';
import type { Kysely, Selectable } from 'kysely';
import type { Database, PushSubscriptionsTable } from './schema.ts';

/** Browsers one account keeps subscribed; the oldest go first (each message fans out to all). */
export const PUSH_SUBSCRIPTIONS_MAX = 10;

export type PushSubscriptionRow = Selectable<PushSubscriptionsTable>;

export class PushStore {
  readonly db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  /**
   * Keeps `sub` for the session: it replaces the session's earlier one, and moves an
   * endpoint another session had (the same browser, signed in again or as someone else).
   * Beyond PUSH_SUBSCRIPTIONS_MAX for the account, the oldest are dropped.
   */
  async subscribe(userId: string, tokenHash: string, sub: PushSubscriptionInput, now: number): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx
        .deleteFrom('push_subscriptions')
        .where((eb) => eb.or([eb('token_hash', '=', tokenHash), eb('endpoint', '=', sub.endpoint)]))
        .execute();
      await tx
        .insertInto('push_subscriptions')
        .values({
          endpoint: sub.endpoint,
          user_id: userId,
          token_hash: tokenHash,
          p256dh: sub.keys.p256dh,
          auth: sub.keys.auth,
          created_at: now,
        })
        .execute();
      const beyond = await tx
        .selectFrom('push_subscriptions')
        .select('endpoint')
        .where('user_id', '=', userId)
        .orderBy('created_at', 'desc')
        .orderBy('endpoint')
        .limit(100)
        .offset(PUSH_SUBSCRIPTIONS_MAX)
        .execute();
      if (beyond.length > 0) {
        await tx
          .deleteFrom('push_subscriptions')
          .where(
            'endpoint',
            'in',
            beyond.map((r) => r.endpoint),
          )
          .execute();
      }
    });
  }

  async unsubscribe(tokenHash: string): Promise<void> {
    await this.db.deleteFrom('push_subscriptions').where('token_hash', '=', tokenHash).execute();
  }

  async subscribed(tokenHash: string): Promise<boolean> {
    const r = await this.db
      .selectFrom('push_subscriptions')
      .select('endpoint')
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return r !== undefined;
  }

  forUser(userId: string): Promise<PushSubscriptionRow[]> {
    return this.db.selectFrom('push_subscriptions').selectAll().where('user_id', '=', userId).execute();
  }

  /** The push service said the subscription is gone (404, 410). */
  async remove(endpoint: string): Promise<void> {
    await this.db.deleteFrom('push_subscriptions').where('endpoint', '=', endpoint).execute();
  }
}

/** Web Push subscriptions, one per session (migration 009). */
import type { PushSubscriptionInput } from '@app/protocol';
import type { Kysely, Selectable } from 'kysely';
import type { Database, PushSubscriptionsTable } from '../schema.ts';

/** Browsers one account keeps subscribed; the oldest go first (each message fans out to all). */
export const PUSH_SUBSCRIPTIONS_MAX = 10;

export type PushSubscriptionRow = Selectable<PushSubscriptionsTable>;

/**
 * How long this process trusts what it learnt of whether a user has subscriptions. Every
 * message asks; almost every user has none, so the answer is kept rather than queried per
 * message. A subscription made through another process is seen within this time; the browser
 * that made it has a tab open meanwhile, and an open tab is told of messages without a push.
 */
export const SUBSCRIBER_CACHE_MS = 30_000;
/** Users remembered at most (the cache is dropped whole beyond it). */
const SUBSCRIBER_CACHE_MAX = 100_000;

export class PushStore {
  readonly db: Kysely<Database>;
  private readonly subscribers = new Map<string, { has: boolean; until: number }>();

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  /**
   * Whether the user may have a subscription: false means none, as of at most
   * SUBSCRIBER_CACHE_MS ago (or since this process last subscribed them).
   */
  async hasSubscriptions(userId: string, now = Date.now()): Promise<boolean> {
    const known = this.subscribers.get(userId);
    if (known && known.until > now) return known.has;
    const row = await this.db
      .selectFrom('push_subscriptions')
      .select('endpoint')
      .where('user_id', '=', userId)
      .limit(1)
      .executeTakeFirst();
    this.remember(userId, row !== undefined, now);
    return row !== undefined;
  }

  private remember(userId: string, has: boolean, now: number): void {
    if (this.subscribers.size >= SUBSCRIBER_CACHE_MAX) this.subscribers.clear();
    this.subscribers.set(userId, { has, until: now + SUBSCRIBER_CACHE_MS });
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
    this.remember(userId, true, now);
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

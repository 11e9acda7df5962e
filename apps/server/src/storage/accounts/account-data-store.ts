/**
 * A user's sealed account data (migration 011; docs/e2ee.md, "Account data"): one blob the
 * server cannot open, replaced by compare-and-set on its version, each new version logged to
 * the user so their other tabs and browsers fetch it.
 */
import type { AccountDataResponse } from '@app/protocol';
import type { Kysely } from 'kysely';
import { appendLog, type LoggedUpdate } from '../messages/chat-rows.ts';
import type { Database } from '../schema.ts';

export class AccountDataStore {
  private readonly db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  /** The sealed blob and its version (null and 0: none yet). */
  async get(userId: string): Promise<AccountDataResponse> {
    const r = await this.db
      .selectFrom('user_account_data')
      .select(['data', 'version'])
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return r ? { data: r.data, version: r.version } : { data: null, version: 0 };
  }

  /**
   * Stores version `version`, only over version `version - 1` (over none for 1): a browser
   * that read an older one loses the race and reads again. Null when it lost; otherwise the
   * log entry that tells the user's other tabs and browsers.
   */
  async put(userId: string, data: string, version: number, now: number): Promise<LoggedUpdate[] | null> {
    return this.db.transaction().execute(async (tx) => {
      let took: bigint;
      if (version === 1) {
        const r = await tx
          .insertInto('user_account_data')
          .values({ user_id: userId, version, data, updated_at: now })
          .onConflict((oc) => oc.column('user_id').doNothing())
          .executeTakeFirst();
        took = r.numInsertedOrUpdatedRows ?? 0n;
      } else {
        const r = await tx
          .updateTable('user_account_data')
          .set({ version, data, updated_at: now })
          .where('user_id', '=', userId)
          .where('version', '=', version - 1)
          .executeTakeFirst();
        took = r.numUpdatedRows;
      }
      if (Number(took) !== 1) return null;
      return appendLog(tx, [{ userId, update: { kind: 'accountData', version } }], now);
    });
  }
}

/** AccountStore queries only tests need (the server itself never asks them). */
import type { AccountStore } from '../storage/accounts/account-store.ts';

/** How many sessions the user has (live or not yet swept). */
export async function countUserSessions(store: AccountStore, userId: string): Promise<number> {
  const r = await store.db
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Sets (or with null removes) a server setting, as the admin routes do through their own store. */
export async function setSetting(store: AccountStore, key: string, value: string | null): Promise<void> {
  if (value === null) {
    await store.db.deleteFrom('settings').where('key', '=', key).execute();
    return;
  }
  await store.db
    .insertInto('settings')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}

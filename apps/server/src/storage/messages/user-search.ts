/** Finding people by handle (the Contacts screen's search): a page at a time, blocked accounts left out. */
import { handleKey, type PublicUser } from '@app/protocol';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.ts';
import { PUBLIC_COLUMNS, toPublicUser } from './chat-rows.ts';

/** Users other than `me` whose handle contains `query` (any case), by handle, after `after`. */
export async function searchUsers(
  db: Kysely<Database>,
  me: string,
  query: string,
  after: string | undefined,
  limit: number,
): Promise<PublicUser[]> {
  const needle = handleKey(query);
  let q = db
    .selectFrom('users')
    .select([...PUBLIC_COLUMNS, 'username_lower'])
    .where('id', '!=', me)
    .where('blocked', '=', 0);
  if (needle) {
    const escaped = needle.replace(/[\\%_]/g, (c) => `\\${c}`);
    q = q.where(sql<boolean>`username_lower LIKE ${`%${escaped}%`} ESCAPE '\\'`);
  }
  if (after) q = q.where('username_lower', '>', after);
  const rows = await q.orderBy('username_lower').limit(limit).execute();
  return rows.map(toPublicUser);
}

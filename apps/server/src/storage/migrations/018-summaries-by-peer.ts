/**
 * Issue 33: who sees a profile change. A profile change, a verified badge and an account
 * blocked or deleted each find the people to tell by the summaries naming the user as their
 * peer (`SocialStore.updateProfile`, `tellPeople` in accounts/admin-store.ts), which read
 * every summary without this index. `peer_id` never changes, so sends, which rewrite
 * summaries, pay nothing for it; a new chat's two summaries add an entry each. It is also
 * the lookup a sharded deployment needs to find a user's audience without asking every
 * shard's whole table (docs/scaling.md, "Past one database").
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('user_chats_peer').on('user_chats').column('peer_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('user_chats_peer').ifExists().execute();
}

/**
 * Issue 12: attempt counters shared by every process without Redis (sign-in, sign-up
 * and mail limits; see security/limits.ts). A row is a fixed-window counter (`count`
 * attempts until `reset_at`) or a pacing slot (`reset_at` is the next free slot).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('rate_limits')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('reset_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('rate_limits').ifExists().execute();
}

/**
 * Issue 5: the audit log of administrative actions (who, what, on what, when). Rows are
 * only ever appended; the actor's and target's names are copied so an entry still
 * reads right after an account is deleted.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_username', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text')
    .addColumn('target_label', 'text')
    .addColumn('detail', 'text')
    .execute();
  await db.schema.createIndex('audit_log_at_idx').on('audit_log').columns(['at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_log').ifExists().execute();
}

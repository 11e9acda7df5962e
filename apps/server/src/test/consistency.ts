/**
 * What must always hold in the database, whatever clients did: no rows of a user who no
 * longer exists (a deleted account keeps only the messages others sent it and their
 * summaries), and no update-log entry beyond its user's seq. Returns the broken rules
 * with their counts; an empty object means consistent.
 */
import { type Kysely, sql } from 'kysely';
import type { Database } from '../storage/schema.ts';

const RULES: Record<string, string> = {
  'messages from a missing sender':
    'select count(*) as n from messages m where not exists (select 1 from users u where u.id = m.sender_id)',
  'summaries of a missing user':
    'select count(*) as n from user_chats c where not exists (select 1 from users u where u.id = c.user_id)',
  'update-log entries of a missing user':
    'select count(*) as n from user_updates x where not exists (select 1 from users u where u.id = x.user_id)',
  'update-log entries beyond their seq':
    'select count(*) as n from user_updates x join users u on u.id = x.user_id where x.seq > u.update_seq',
  'sessions of a missing user':
    'select count(*) as n from sessions s where not exists (select 1 from users u where u.id = s.user_id)',
  'settings of a missing user':
    'select count(*) as n from user_settings s where not exists (select 1 from users u where u.id = s.user_id)',
  'contacts of a missing user':
    'select count(*) as n from contacts c where not exists (select 1 from users u where u.id = c.user_id) or not exists (select 1 from users u where u.id = c.other_id)',
  'notifications of a missing user':
    'select count(*) as n from user_notifications n where not exists (select 1 from users u where u.id = n.user_id)',
};

export async function inconsistencies(db: Kysely<Database>): Promise<Record<string, number>> {
  const broken: Record<string, number> = {};
  for (const [rule, text] of Object.entries(RULES)) {
    const r = await sql<{ n: number | string }>`${sql.raw(text)}`.execute(db);
    const n = Number(r.rows[0]?.n ?? 0);
    if (n > 0) broken[rule] = n;
  }
  return broken;
}

/**
 * `npm run admin -- doctor` and `backup --verify` (cli/doctor.ts): what a healthy Parley
 * database always holds, checked row by row on either engine. Each check counts the rows that
 * break a rule and names a few (by id: no message text, no ciphertext is read). Nothing here
 * writes: a finding says what is wrong and where; mending it is the operator's call.
 */
import { type Kysely, type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import type { Db } from '../db.ts';
import { pendingMigrations, unknownMigrations } from '../db.ts';
import type { Database } from '../schema.ts';

export interface Finding {
  /** What the rule is, as the report names it. */
  check: string;
  /** Rows (or things) that break it. */
  count: number;
  /** A few of them, by id. */
  examples: string[];
  /** What it means, and what to do. */
  advice: string;
}

/** How many examples a finding names. */
const EXAMPLES = 5;

/** `a_b` for two ids, the smaller first: a chat's id (protocol chatIdOf), in SQL. */
const pairOf = (a: string, b: string): RawBuilder<string> =>
  sql<string>`case when ${sql.ref(a)} < ${sql.ref(b)} then ${sql.ref(a)} || '_' || ${sql.ref(b)} else ${sql.ref(b)} || '_' || ${sql.ref(a)} end`;

type Q = Kysely<Database>;

interface Rule {
  check: string;
  advice: string;
  /** The rows that break it, counted and named by `id`. */
  run(db: Q): Promise<{ count: number; examples: string[] }>;
}

/** How many rows `q` finds, and the first few of them named by `id`. */
async function offending<DB, TB extends keyof DB>(
  q: SelectQueryBuilder<DB, TB, object>,
  id: RawBuilder<string>,
): Promise<{ count: number; examples: string[] }> {
  const [c, rows] = await Promise.all([
    q.select(sql<string | number>`count(*)`.as('n')).executeTakeFirst(),
    q.select(id.as('id')).limit(EXAMPLES).execute(),
  ]);
  const n = (c as { n?: string | number } | undefined)?.n ?? 0;
  return { count: Number(n), examples: rows.map((r) => String((r as { id: string }).id)) };
}

const RULES: Rule[] = [
  {
    check: 'update log entries beyond their user’s sequence number',
    advice:
      'A client resuming after such an entry would miss or repeat updates. Restore from a backup, or report it: it should never happen.',
    run: (db) => {
      const q = db
        .selectFrom('user_updates as u')
        .innerJoin('users as s', 's.id', 'u.user_id')
        .whereRef('u.seq', '>', 's.update_seq');
      return offending(q, sql<string>`u.user_id || ':' || u.seq`);
    },
  },
  {
    check: 'chat summaries whose chat id does not name their user and peer',
    advice: 'The chat list would show it under the wrong person. Remove the summary; the next message makes it anew.',
    run: (db) => {
      const q = db.selectFrom('user_chats').where(sql<boolean>`chat_id <> ${pairOf('user_id', 'peer_id')}`);
      return offending(q, sql<string>`user_id || ':' || chat_id`);
    },
  },
  {
    check: 'chat summaries showing a message the chat does not have',
    advice: 'The chat list shows a preview of nothing. It mends itself with the chat’s next message.',
    run: (db) => {
      const q = db
        .selectFrom('user_chats as uc')
        .leftJoin('messages as m', (j) => j.onRef('m.chat_id', '=', 'uc.chat_id').onRef('m.id', '=', 'uc.last_id'))
        .where('uc.last_id', 'is not', null)
        .where('m.id', 'is', null);
      return offending(q, sql<string>`uc.user_id || ':' || uc.chat_id`);
    },
  },
  {
    check: 'chat summaries with a negative unread count',
    advice: 'The badge shows nonsense until the user opens the chat.',
    run: (db) => {
      const q = db.selectFrom('user_chats').where('unread_count', '<', 0);
      return offending(q, sql<string>`user_id || ':' || chat_id`);
    },
  },
  {
    check: 'messages whose chat id does not name their sender and recipient',
    advice: 'Neither participant can find it in the right chat. Report it: it should never happen.',
    run: (db) => {
      const q = db.selectFrom('messages').where(sql<boolean>`chat_id <> ${pairOf('sender_id', 'recipient_id')}`);
      return offending(q, sql<string>`chat_id || ':' || id`);
    },
  },
  {
    check: 'encrypted messages in a chat that has no key',
    advice:
      'Their recipient cannot open them: the chat’s key envelopes are gone (a partial restore?). Restore chat_keys from the backup the messages came from.',
    run: (db) => {
      const q = db
        .selectFrom('messages as m')
        .where('m.sealed', '=', 1)
        .where('m.deleted', '=', 0)
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('chat_keys as k').select('k.chat_id').whereRef('k.chat_id', '=', 'm.chat_id'))),
        );
      return offending(q, sql<string>`m.chat_id || ':' || m.id`);
    },
  },
  {
    check: 'keys of accounts that no longer exist',
    advice: 'Left over from a deletion that did not finish. They are public keys and sealed bundles: safe to delete.',
    run: (db) => {
      const q = db.selectFrom('user_keys as k').leftJoin('users as u', 'u.id', 'k.user_id').where('u.id', 'is', null);
      return offending(q, sql<string>`k.user_id`);
    },
  },
  {
    check: 'sessions of blocked accounts',
    advice:
      'Blocking ends every session; these can still act. Run `npm run admin -- users revoke-sessions` for each, or block them again from the admin area.',
    run: (db) => {
      const q = db.selectFrom('sessions as s').innerJoin('users as u', 'u.id', 's.user_id').where('u.blocked', '=', 1);
      return offending(q, sql<string>`u.username`);
    },
  },
];

/** SQLite's own page and foreign-key checks (PostgreSQL checks its pages as it reads them). */
async function engineChecks(db: Db): Promise<Finding[]> {
  if (db.engine !== 'sqlite') return [];
  const pages = await sql<{ integrity_check: string }>`PRAGMA integrity_check`.execute(db.kysely);
  const broken = pages.rows.map((r) => r.integrity_check).filter((r) => r !== 'ok');
  const keys = await sql<{ table: string; rowid: number }>`PRAGMA foreign_key_check`.execute(db.kysely);
  const out: Finding[] = [];
  if (broken.length)
    out.push({
      check: 'SQLite integrity check',
      count: broken.length,
      examples: broken.slice(0, EXAMPLES),
      advice: 'The database file is damaged. Stop the server and restore the newest backup that verifies.',
    });
  if (keys.rows.length)
    out.push({
      check: 'rows pointing to rows that do not exist (foreign keys)',
      count: keys.rows.length,
      examples: keys.rows.slice(0, EXAMPLES).map((r) => `${r.table}#${r.rowid}`),
      advice: 'Left by a write that bypassed the server. Restore from a backup, or report it.',
    });
  return out;
}

/** Migrations the database has not run, or has run and this code does not know. */
async function migrationChecks(db: Db): Promise<Finding[]> {
  const out: Finding[] = [];
  const pending = await pendingMigrations(db);
  if (pending.length)
    out.push({
      check: 'migrations not run yet',
      count: pending.length,
      examples: pending.slice(0, EXAMPLES),
      advice: 'The server runs them at its next start.',
    });
  const unknown = await unknownMigrations(db);
  if (unknown.length)
    out.push({
      check: 'migrations of a newer Parley',
      count: unknown.length,
      examples: unknown.slice(0, EXAMPLES),
      advice: 'This database was upgraded by a newer release: run that release (or newer) on it.',
    });
  return out;
}

/** Complete attachments whose blob is missing from the store, or shorter or longer than recorded. */
export type BlobSizeOf = (id: string) => Promise<number | null>;

async function blobChecks(db: Q, sizeOf: BlobSizeOf): Promise<Finding[]> {
  const rows = await db.selectFrom('attachments').select(['id', 'size']).where('complete', '=', 1).execute();
  const bad: string[] = [];
  for (const r of rows) if ((await sizeOf(r.id)) !== Number(r.size)) bad.push(r.id);
  if (bad.length === 0) return [];
  return [
    {
      check: 'attachments whose stored blob is missing or of the wrong size',
      count: bad.length,
      examples: bad.slice(0, EXAMPLES),
      advice:
        'Their messages show "could not be downloaded". Restore the blobs (ATTACHMENT_DIR or the bucket) from a backup.',
    },
  ];
}

/** Every check, in order; only those that found something. `sizeOf`: the blob store's (none: skipped). */
export async function checkIntegrity(db: Db, sizeOf?: BlobSizeOf): Promise<Finding[]> {
  const out = [...(await engineChecks(db)), ...(await migrationChecks(db))];
  for (const rule of RULES) {
    const r = await rule.run(db.kysely);
    if (r.count > 0) out.push({ check: rule.check, advice: rule.advice, ...r });
  }
  if (sizeOf) out.push(...(await blobChecks(db.kysely, sizeOf)));
  return out;
}

/** The names of the checks that run, for the report. */
export const CHECKS = ['engine integrity', 'migrations', ...RULES.map((r) => r.check), 'attachment blobs'] as const;

/**
 * A PostgreSQL deployment in a backup (backup.ts): each of Parley's tables as COPY text,
 * read in one REPEATABLE READ transaction (one snapshot, while the server writes), with the
 * migrations the schema had run. Restored into whatever schema the target is configured
 * for (DATABASE_SCHEMA, or the default one): the tables are made there by this code's own
 * migrations, up to the backup's, and filled with COPY in one transaction. A pg_dump archive
 * names its schema in every statement, so pg_restore could only put it back where it came
 * from, over whatever lives there now; and no pg_dump binary is needed.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { type Db, migrateTo, openDb } from '../storage/db.ts';
import { dependencyOrder } from '../storage/table-order.ts';

export interface PgTable {
  name: string;
  columns: string[];
  rows: number;
}

/** What the manifest says of a PostgreSQL backup. */
export interface PgDump {
  /** The schema it was read from (for the operator: it restores into any). */
  schema: string;
  /** The migrations it had run, in order. */
  migrations: string[];
  /** Its tables, each after those its foreign keys point to. */
  tables: PgTable[];
}

const ident = (s: string) => `"${s.replaceAll('"', '""')}"`;
const fileOf = (dir: string, table: string) => path.join(dir, `${table}.copy`);

async function connect(url: string, schema: string | null): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  if (schema) await c.query(`SET search_path TO ${ident(schema)}`);
  return c;
}

/** Parley's tables in the current schema (not Kysely's bookkeeping), each after those it refers to. */
async function tablesInOrder(c: pg.Client): Promise<string[]> {
  const names = (
    await c.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name NOT LIKE 'kysely\\_%'
        ORDER BY table_name`,
    )
  ).rows.map((r) => r.name);
  const fks = await c.query<{ t: string; ref: string }>(
    `SELECT cl.relname AS t, ref.relname AS ref FROM pg_constraint con
       JOIN pg_class cl ON cl.oid = con.conrelid JOIN pg_class ref ON ref.oid = con.confrelid
       JOIN pg_namespace n ON n.oid = cl.relnamespace
      WHERE con.contype = 'f' AND n.nspname = current_schema()`,
  );
  const deps = new Map<string, string[]>();
  for (const { t, ref } of fks.rows) deps.set(t, [...(deps.get(t) ?? []), ref]);
  return dependencyOrder(names, deps);
}

/** Writes the schema's tables into `dir` (one `<table>.copy` each); what it holds. */
export async function dumpPg(url: string, schema: string | null, dir: string): Promise<PgDump> {
  const c = await connect(url, schema);
  try {
    await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const current = (await c.query<{ s: string | null }>('SELECT current_schema() AS s')).rows[0]?.s;
    if (!current) throw new Error(`No schema ${schema ?? ''} in this database: nothing to back up.`);
    const done = await c.query<{ name: string }>(`SELECT name FROM kysely_migration ORDER BY name`);
    const tables: PgTable[] = [];
    for (const name of await tablesInOrder(c)) {
      const columns = (
        await c.query<{ c: string }>(
          `SELECT column_name AS c FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
          [name],
        )
      ).rows.map((r) => r.c);
      const out = c.query(copyTo(`COPY ${ident(name)} (${columns.map(ident).join(', ')}) TO STDOUT`));
      await pipeline(out, createWriteStream(fileOf(dir, name), { mode: 0o600 }));
      tables.push({ name, columns, rows: out.rowCount });
    }
    await c.query('COMMIT');
    return { schema: current, migrations: done.rows.map((r) => r.name), tables };
  } finally {
    await c.end();
  }
}

/**
 * Makes room for the backup's tables in the target schema: none of them (nor Kysely's
 * bookkeeping) may be there, unless `force`, which drops those and touches nothing else.
 * False: refused.
 */
async function makeRoom(url: string, schema: string | null, dump: PgDump, force: boolean): Promise<boolean> {
  const c = await connect(url, schema);
  try {
    const names = [...dump.tables.map((t) => t.name), 'kysely_migration', 'kysely_migration_lock'];
    const there = (
      await c.query<{ name: string }>(
        `SELECT table_name AS name FROM information_schema.tables
          WHERE table_schema = current_schema() AND table_name = ANY($1)`,
        [names],
      )
    ).rows.map((x) => x.name);
    if (there.length === 0) return true;
    if (!force) return false;
    await c.query(`DROP TABLE IF EXISTS ${there.map(ident).join(', ')} CASCADE`);
    return true;
  } finally {
    await c.end();
  }
}

/** Fills the schema's tables from `dir`, in one transaction; each table's rows are counted against the backup's. */
async function fill(db: Db, dir: string, dump: PgDump): Promise<void> {
  if (!db.pool) throw new Error('not a PostgreSQL database');
  const c = await db.pool.connect();
  try {
    await c.query('BEGIN');
    for (const t of dump.tables) {
      const into = c.query(copyFrom(`COPY ${ident(t.name)} (${t.columns.map(ident).join(', ')}) FROM STDIN`));
      await pipeline(createReadStream(fileOf(dir, t.name)), into);
      if (into.rowCount !== t.rows) throw new Error(`${t.name}: ${into.rowCount} rows restored of ${t.rows}`);
    }
    await c.query('COMMIT');
  } catch (e) {
    await c.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    c.release();
  }
}

export type RestoreRefusal = { refused: string };

/**
 * Restores `dump` (its files in `dir`, of this Parley or an older one: backup.ts checks) into
 * the configured schema: refused when the schema holds Parley's tables already (unless
 * `force`, which drops those tables first).
 */
export async function restorePg(
  url: string,
  schema: string | null,
  dir: string,
  dump: PgDump,
  force: boolean,
): Promise<RestoreRefusal | null> {
  if (!(await makeRoom(url, schema, dump, force))) {
    return {
      refused: `The schema ${schema ?? '(the default one)'} already holds Parley tables. Restore into an empty one, or add --force to replace them.`,
    };
  }
  const db = await openDb({ databaseUrl: url, ...(schema ? { pgSchema: schema } : {}) });
  try {
    const last = dump.migrations.at(-1);
    if (last) await migrateTo(db, last);
    await fill(db, dir, dump);
  } finally {
    await db.close();
  }
  return null;
}

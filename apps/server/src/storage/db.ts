/** Opens the database: SQLite file under DATA_DIR by default, PostgreSQL when a URL is given. */
import { chmodSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { type MigrationProvider, Migrator } from 'kysely/migration';
import pg from 'pg';
import { startCheckpointer } from './checkpointer.ts';
import { migrations } from './migrations/index.ts';
import { SchemaPostgresDialect } from './pg-introspector.ts';
import type { SyncSqlite } from './program.ts';
import type { Database } from './schema.ts';

const require = createRequire(import.meta.url);

export type Engine = 'sqlite' | 'postgres';

/** Distinct SQLite statements kept prepared (an IN list of each length is its own). */
const STATEMENT_CACHE_MAX = 2000;

/** PostgreSQL connections for grouped sends: the groups in flight at once (chat-store.ts). */
export const SEND_CONNECTIONS = 4;

export interface Db {
  kysely: Kysely<Database>;
  engine: Engine;
  /** The PostgreSQL schema in use, when not the default. */
  schema?: string;
  /** SQLite only: the same connection as `kysely`, for synchronous statements (see group-commit.ts). */
  sqlite?: SyncSqlite;
  /** PostgreSQL only: the pool under `kysely`. */
  pool?: pg.Pool;
  /**
   * PostgreSQL only: a few connections in pipeline mode, for grouped sends (send-batch.ts):
   * statements queued together leave in one write and are answered in one read.
   */
  sendPool?: pg.Pool;
  close(): Promise<void>;
}

// int8 (bigint) and numeric counts come back as numbers: our values are ms timestamps and counters.
pg.types.setTypeParser(20, (v) => Number(v));

export interface OpenOptions {
  /** postgres://… to use PostgreSQL. */
  databaseUrl?: string | null;
  /** Directory for the SQLite file (ignored with databaseUrl). */
  dataDir?: string;
  /** ':memory:' or a file path, overriding dataDir. */
  sqliteFile?: string;
  /** PostgreSQL schema to use (created if missing); tests use one each. */
  pgSchema?: string;
  /**
   * SQLite's `synchronous`: `full` (the default) syncs the WAL at every commit, so what
   * was acknowledged survives a power cut; `normal` only at checkpoints (it survives the
   * process being killed). A group commit makes one sync serve many sends.
   */
  sqliteSynchronous?: 'full' | 'normal';
  /** PostgreSQL's application_name for these connections (a server's: running-server.ts). */
  applicationName?: string;
}

/**
 * Creates the schema unless it exists. Processes started at once on one new schema (the
 * cluster) take turns: `CREATE SCHEMA IF NOT EXISTS` alone lets two of them both see the
 * name free, and the second then fails on pg_namespace's unique index (23505). Under a
 * transaction-scoped advisory lock on the name, the second waits for the first to commit
 * and then finds the schema there.
 */
async function createSchema(databaseUrl: string, schema: string): Promise<void> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    await c.query('BEGIN');
    await c.query(`SELECT pg_advisory_xact_lock(hashtext('parley:create-schema'), hashtext($1))`, [schema]);
    await c.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await c.query('COMMIT');
  } catch (e) {
    // The error above is what is thrown; the connection ends just after.
    await c.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    await c.end();
  }
}

/** Readable and writable by the owner only, if the file is there. */
function ownOnly(file: string): void {
  try {
    chmodSync(file, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

export async function openDb(opts: OpenOptions): Promise<Db> {
  if (opts.databaseUrl) {
    const schema = opts.pgSchema;
    if (schema && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`Bad schema name ${schema}`);
    if (schema) await createSchema(opts.databaseUrl, schema);
    const config = {
      connectionString: opts.databaseUrl,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
      ...(opts.applicationName ? { application_name: opts.applicationName } : {}),
    };
    const pool = new pg.Pool({ ...config, max: 10 });
    const sendPool = new pg.Pool({ ...config, max: SEND_CONNECTIONS, pipeline: true });
    // An idle connection that PostgreSQL drops (a restart, a terminated backend) is an
    // 'error' on its pool, which would end the process unheard; the pool has discarded it
    // already and connects anew on the next query.
    for (const p of [pool, sendPool]) p.on('error', () => {});
    const kysely = new Kysely<Database>({ dialect: new SchemaPostgresDialect({ pool }) });
    const close = async () => {
      await Promise.all([kysely.destroy(), sendPool.end()]);
    };
    return { kysely, engine: 'postgres', pool, sendPool, ...(schema ? { schema } : {}), close };
  }
  const file = opts.sqliteFile ?? path.join(opts.dataDir ?? 'data', 'parley.sqlite');
  const sqlite = new SQLite(file);
  // The server's user's alone (SQLite gives its -wal and -shm files the database's mode).
  if (file !== ':memory:') for (const f of [file, `${file}-wal`, `${file}-shm`]) ownOnly(f);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma(`synchronous = ${opts.sqliteSynchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Deleted bytes are zeroed, not left in free space: a deleted message's text does not
  // linger in the file (npm run admin -- purge-plaintext compacts what was left before).
  sqlite.pragma('secure_delete = ON');
  // Hot pages stay in memory (64 MiB of cache, reads through a memory map).
  sqlite.pragma('cache_size = -65536');
  sqlite.pragma('mmap_size = 268435456');
  sqlite.pragma('temp_store = memory');
  sqlite.pragma('journal_size_limit = 67108864');
  // A file database is checkpointed by a worker thread, off the message path (see
  // checkpointer.ts); the commits here checkpoint only if the WAL ever gets very long.
  const checkpointer = file === ':memory:' ? null : startCheckpointer(file, require.resolve('better-sqlite3'));
  sqlite.pragma(`wal_autocheckpoint = ${checkpointer ? 50_000 : 1000}`);
  // Write transactions take the write lock up front (BEGIN IMMEDIATE): a deferred one that
  // reads first and then writes fails at once with SQLITE_BUSY when another connection
  // (a second process, a maintenance script) committed in between; an immediate one waits.
  //
  // Prepared statements are kept (Kysely would prepare every query anew: a fifth of the
  // message path's CPU); queries are built from a fixed set of shapes, bounded anyway.
  const statements = new Map<string, SQLite.Statement>();
  const database = {
    close: () => sqlite.close(),
    prepare: (query: string) => {
      const text = query === 'begin' ? 'begin immediate' : query;
      let stmt = statements.get(text);
      if (!stmt) {
        if (statements.size >= STATEMENT_CACHE_MAX) statements.clear();
        stmt = sqlite.prepare(text);
        statements.set(text, stmt);
      }
      return stmt;
    },
  };
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  return {
    kysely,
    engine: 'sqlite',
    sqlite: database,
    close: async () => {
      await checkpointer?.close();
      await kysely.destroy();
    },
  };
}

const provider: MigrationProvider = { getMigrations: async () => migrations };

function migratorOf(db: Db): Migrator {
  // Kysely looks for its bookkeeping tables in every schema: name ours, so databases
  // holding several schemas (tests, tenants) do not see each other's.
  return new Migrator({
    db: db.kysely,
    provider,
    ...(db.schema ? { migrationTableSchema: db.schema } : {}),
  });
}

/** The code's migrations the database has not run (none once the server has started). */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const all = await migratorOf(db).getMigrations();
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name);
}

/**
 * The migrations the database has run that this code does not know: it was upgraded by a
 * newer release. Running older code on it could corrupt it, so nothing runs.
 */
export async function unknownMigrations(db: Db): Promise<string[]> {
  const known = new Set(Object.keys(migrations));
  const table = db.schema ? db.kysely.withSchema(db.schema) : db.kysely;
  try {
    const rows = await (table as Kysely<{ kysely_migration: { name: string } }>)
      .selectFrom('kysely_migration')
      .select('name')
      .execute();
    return rows.map((r) => r.name).filter((n) => !known.has(n));
  } catch {
    return []; // a new database: no migration table yet
  }
}

/** Runs the migrations up to `name` and no further (a restore: the tables as the backup had them). */
export async function migrateTo(db: Db, name: string): Promise<void> {
  const { error } = await migratorOf(db).migrateTo(name);
  if (error) throw error;
}

export async function migrate(db: Db): Promise<string[]> {
  const newer = await unknownMigrations(db);
  if (newer.length > 0) {
    throw new Error(
      `This database was upgraded by a newer Parley (migrations ${newer.join(', ')}); this version cannot run on it. Run that version (or newer), or restore a backup made before the upgrade.`,
    );
  }
  const { error, results } = await migratorOf(db).migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * `npm run admin -- migrate-to-postgres --to postgres://… [--schema NAME]`: moves a SQLite
 * deployment (DATA_DIR) into an empty PostgreSQL database, every table (accounts, messages,
 * summaries, the update log, sessions, keys, settings…), in one PostgreSQL transaction: it
 * lands whole or not at all. Both databases are first brought to this version's migrations.
 * The SQLite deployment's session secret goes along (as the setting every PostgreSQL process
 * adopts), so people stay signed in. Run it with the server stopped; then start the server
 * with DATABASE_URL (and DATABASE_SCHEMA) set.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import { loadConfig, loadOrCreateSecret } from '../config.ts';
import { type Db, migrate, openDb } from '../storage/db.ts';
import type { Database } from '../storage/schema.ts';
import { dependencyOrder } from '../storage/table-order.ts';
import type { AdminOutput } from './output.ts';

export const MIGRATE_USAGE = `  migrate-to-postgres --to <postgres://…> [--schema NAME]
                                            copy this SQLite deployment (DATA_DIR) into an
                                            empty PostgreSQL database, all or nothing; then
                                            start the server with DATABASE_URL set to it`;

/** PostgreSQL takes at most 65,535 parameters a statement. */
const MAX_PARAMS = 60_000;
const PAGE = 2_000;

type AnyDb = Kysely<Record<string, Record<string, unknown>>>;

/** The tables, each after those its foreign keys point to. */
async function tablesInOrder(source: Db): Promise<string[]> {
  const k = source.kysely as unknown as AnyDb;
  const names = (
    await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'
      AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%' ORDER BY name`.execute(k)
  ).rows.map((r) => r.name);
  const deps = new Map<string, string[]>();
  for (const name of names) {
    const fks = await sql<{ table: string }>`SELECT "table" FROM pragma_foreign_key_list(${name})`.execute(k);
    deps.set(
      name,
      fks.rows.map((r) => r.table),
    );
  }
  return dependencyOrder(names, deps);
}

async function copyTable(source: AnyDb, target: AnyDb, table: string): Promise<number> {
  let copied = 0;
  for (let offset = 0; ; offset += PAGE) {
    const rows = await source.selectFrom(table).selectAll().limit(PAGE).offset(offset).execute();
    if (rows.length === 0) break;
    const columns = Object.keys(rows[0] as object).length || 1;
    const chunk = Math.max(1, Math.floor(MAX_PARAMS / columns));
    for (let i = 0; i < rows.length; i += chunk) {
      await target
        .insertInto(table)
        .values(rows.slice(i, i + chunk) as never)
        .execute();
    }
    copied += rows.length;
    if (rows.length < PAGE) break;
  }
  return copied;
}

async function count(db: AnyDb, table: string): Promise<number> {
  const r = await db.selectFrom(table).select(sql<string>`count(*)`.as('n')).executeTakeFirst();
  return Number(r?.n ?? 0);
}

async function hasSetting(db: AnyDb, key: string): Promise<boolean> {
  return (await db.selectFrom('settings').select('key').where('key', '=', key).executeTakeFirst()) !== undefined;
}

export async function runMigrateToPostgres(args: string[], env: NodeJS.ProcessEnv, out: AdminOutput): Promise<number> {
  const flag = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const to = flag('--to') ?? env.DATABASE_URL;
  const schema = flag('--schema') ?? env.DATABASE_SCHEMA ?? null;
  if (!to || !/^postgres(ql)?:\/\//.test(to)) {
    out.error(`Give the PostgreSQL database to move into.\n\n${MIGRATE_USAGE}`);
    return 2;
  }
  // The SQLite deployment: DATA_DIR as the server has it (without DATABASE_URL).
  const config = loadConfig({ ...env, DATABASE_URL: '', DATABASE_SCHEMA: '' });
  const file = path.join(config.dataDir, 'parley.sqlite');
  if (!existsSync(file)) {
    out.error(`No SQLite database at ${file} (set DATA_DIR).`);
    return 1;
  }
  const source = await openDb({ dataDir: config.dataDir });
  const target = await openDb({ databaseUrl: to, ...(schema ? { pgSchema: schema } : {}) });
  try {
    await migrate(source);
    await migrate(target);
    const src = source.kysely as unknown as AnyDb;
    const tables = await tablesInOrder(source);
    for (const table of tables) {
      if ((await count(target.kysely as unknown as AnyDb, table)) > 0) {
        out.error(`The PostgreSQL database already has rows in ${table}: move into an empty one.`);
        return 1;
      }
    }
    const secret = config.sessionSecretFromEnv ? null : loadOrCreateSecret(config.dataDir);
    const copied = new Map<string, number>();
    await target.kysely.transaction().execute(async (tx) => {
      const dst = tx as unknown as AnyDb;
      for (const table of tables) {
        copied.set(table, await copyTable(src, dst, table));
        out.log(`  ${table}: ${copied.get(table)} rows`);
      }
      // Sessions stay valid: every PostgreSQL process adopts this secret (services.ts).
      if (secret) {
        await (tx as unknown as Kysely<Database>)
          .insertInto('settings')
          .values({ key: 'internal:sessionSecret', value: secret })
          .onConflict((oc) => oc.column('key').doUpdateSet({ value: secret }))
          .execute();
      }
    });
    for (const table of tables) {
      const n = await count(target.kysely as unknown as AnyDb, table);
      const added = table === 'settings' && secret && !(await hasSetting(src, 'internal:sessionSecret')) ? 1 : 0;
      const expected = (copied.get(table) ?? 0) + added;
      const had = await count(src, table);
      if (n !== expected || (copied.get(table) ?? 0) !== had) {
        out.error(`${table}: ${had} rows in SQLite, ${n} in PostgreSQL after the copy.`);
        return 1;
      }
    }
    out.log(
      `Moved ${tables.length} tables into PostgreSQL. Start the server with DATABASE_URL${schema ? ` and DATABASE_SCHEMA=${schema}` : ''}.`,
    );
    if (config.sessionSecretFromEnv) out.log('SESSION_SECRET is set: keep setting the same one.');
    return 0;
  } finally {
    await source.close();
    await target.close();
  }
}

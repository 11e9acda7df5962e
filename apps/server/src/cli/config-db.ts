/** The database a configuration names, as the admin commands open it and name it. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { type Db, openDb } from '../storage/db.ts';

export function openConfiguredDb(config: Config): Promise<Db> {
  return openDb({
    dataDir: config.dataDir,
    sqliteSynchronous: config.sqliteSynchronous,
    databaseUrl: config.databaseUrl,
    ...(config.databaseSchema ? { pgSchema: config.databaseSchema } : {}),
  });
}

/** The database, as the operator checks it before a command writes (no password). */
export function describeDatabase(config: Config): string {
  if (!config.databaseUrl) return `SQLite database ${path.join(config.dataDir, 'parley.sqlite')}`;
  const u = new URL(config.databaseUrl);
  const schema = config.databaseSchema ? `, schema ${config.databaseSchema}` : '';
  return `PostgreSQL database ${decodeURIComponent(u.pathname.slice(1)) || '(default)'} on ${u.host}${schema}`;
}

/** Why a command that needs an existing deployment cannot run on this configuration, or null. */
export function missingDatabase(config: Config): string | null {
  if (config.databaseUrl) return null;
  const file = path.join(config.dataDir, 'parley.sqlite');
  if (existsSync(file)) return null;
  return `No database at ${file}. Set DATA_DIR (or DATABASE_URL) as the server has it, or run this where its .env is.`;
}

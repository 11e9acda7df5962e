/** The database a configuration names, as the admin commands open it. */
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

/** How the admin commands that work on an existing deployment open it (as runAdmin does). */
import { type Config, loadConfig } from '../config.ts';
import { type Db, migrate } from '../storage/db.ts';
import { describeDatabase, missingDatabase, openConfiguredDb } from './config-db.ts';
import type { AdminOutput } from './output.ts';

/**
 * Reads the settings as the server does (without making DATA_DIR), refuses where there is no
 * database, names the database, then runs `f` on it (migrated) and closes it. Its exit code.
 */
export async function withDeployment(
  env: NodeJS.ProcessEnv,
  out: AdminOutput,
  f: (db: Db, config: Config) => Promise<number>,
): Promise<number> {
  const config = loadConfig(env, {}, { create: false });
  const missing = missingDatabase(config);
  if (missing) {
    out.error(missing);
    return 1;
  }
  out.log(`Using the ${describeDatabase(config)}.`);
  const db = await openConfiguredDb(config);
  try {
    await migrate(db);
    return await f(db, config);
  } finally {
    await db.close();
  }
}

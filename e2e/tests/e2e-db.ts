/** The shared e2e server's SQLite database, opened beside the running server (for setups and checks a UI cannot make). */
import path from 'node:path';
import Database from 'better-sqlite3';
import { E2E_DATA_DIR } from '../env.ts';

export const E2E_DB_FILE = path.join(E2E_DATA_DIR, 'parley.sqlite');

export function withE2eDb<T>(run: (db: Database.Database) => T): T {
  const db = new Database(E2E_DB_FILE);
  try {
    db.pragma('busy_timeout = 5000');
    return run(db);
  } finally {
    db.close();
  }
}

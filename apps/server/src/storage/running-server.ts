/**
 * Whether a Parley server runs on a database, for the commands that must not write under
 * one (`restore`): a running server keeps its open files, or its pooled connections, and goes
 * on serving what was there, and what it writes next is lost at its restart.
 * - SQLite: the server keeps its pid in DATA_DIR/parley.pid while it runs (removed at close);
 *   a pid file whose process is gone (a crash) does not count.
 * - PostgreSQL: the server's connections carry the application name `parley-server:<schema>`,
 *   which pg_stat_activity shows to anyone connected to the database, from any host.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';

const PID_FILE = 'parley.pid';

/** The application name of a server's PostgreSQL connections on `schema` (at most 63 bytes). */
export function serverApplicationName(schema: string | null | undefined): string {
  return `parley-server:${schema || 'public'}`.slice(0, 63);
}

/** Marks DATA_DIR as served by this process; the returned function unmarks it. */
export function markSqliteServer(dataDir: string): () => void {
  const file = path.join(dataDir, PID_FILE);
  writeFileSync(file, `${process.pid}\n`, { mode: 0o600 });
  return () => {
    try {
      if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file, { force: true });
    } catch {
      // gone already
    }
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid of the server running on DATA_DIR, or null. */
export function sqliteServerPid(dataDir: string): number | null {
  let pid: number;
  try {
    pid = Number(readFileSync(path.join(dataDir, PID_FILE), 'utf8').trim());
  } catch {
    return null;
  }
  return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : null;
}

/** How many connections servers on `schema` hold to the database at `url`. */
export async function pgServerConnections(url: string, schema: string | null): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query<{ n: string }>(
      'SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
      [serverApplicationName(schema)],
    );
    return Number(r.rows[0]?.n ?? 0);
  } finally {
    await c.end();
  }
}

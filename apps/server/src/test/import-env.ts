/**
 * The import-rtdb tests' set-up: a test server on SQLite or PostgreSQL (a schema of its
 * own), the environment the admin command needs to open the same database and outbox, and
 * an export file written to a temporary folder.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runAdmin } from '../cli/admin.ts';
import { dropPgSchema, LOOSE_LIMITS, startTestServer, type TestServer } from './harness.ts';

export interface ImportEnv {
  t: TestServer;
  /** The environment of `npm run admin` for this server's database and DATA_DIR. */
  env: Record<string, string>;
  /** Writes `tree` as an export file (a string as it is); its path. */
  file(tree: unknown): string;
  /** Runs `import-rtdb` with these arguments after the file; its exit code and output. */
  run(file: string, ...args: string[]): Promise<{ code: number; out: string; lines: string[] }>;
  close(): Promise<void>;
}

export async function importEnv(url: string, tag: string): Promise<ImportEnv> {
  const schema = `t_${tag}_${process.pid}_${Date.now().toString(36)}`;
  const pg: Record<string, string> = url ? { DATABASE_URL: url, DATABASE_SCHEMA: schema } : {};
  const t = await startTestServer({ env: pg, config: { rateLimits: LOOSE_LIMITS } });
  const env: Record<string, string> = { DATA_DIR: t.dataDir, ADMIN_EMAIL: 'admin@example.com', ...pg };
  const dir = mkdtempSync(path.join(tmpdir(), 'parley-import-'));
  let n = 0;
  return {
    t,
    env,
    file(tree) {
      const f = path.join(dir, `export-${++n}.json`);
      writeFileSync(f, typeof tree === 'string' ? tree : JSON.stringify(tree));
      return f;
    },
    async run(file, ...args) {
      const lines: string[] = [];
      const out = { log: (l: string) => lines.push(l), error: (l: string) => lines.push(`ERR ${l}`) };
      const code = await runAdmin(['import-rtdb', file, ...args], env, out);
      return { code, out: lines.join('\n'), lines };
    },
    async close() {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
      if (url) await dropPgSchema(url, schema);
    },
  };
}

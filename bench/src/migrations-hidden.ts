/**
 * --compare runs another checkout's server on the database this one seeded. A server
 * refuses a database migrated by a newer release (the migrations it does not know are
 * listed in kysely_migration): while the other checkout's server runs, the records of the
 * migrations it lacks are taken out of that table, and put back before this checkout's
 * server starts. What those migrations made stays (an older server does not read it).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { openDb } from '@app/server';
import type { Kysely } from 'kysely';

type Migrations = Kysely<{ kysely_migration: { name: string; timestamp: string } }>;

/** The migrations a checkout at `root` knows (their file names without `.ts`). */
function knownBy(root: string): Set<string> {
  const dir = path.join(root, 'apps/server/src/storage/migrations');
  return new Set(
    readdirSync(dir)
      .filter((f) => /^\d{3}-.*\.ts$/.test(f) && !f.endsWith('.test.ts'))
      .map((f) => f.slice(0, -3)),
  );
}

export interface DbAt {
  dataDir: string;
  pgUrl: string | null;
  schema: string;
}

/** Hides what `root` does not know from the database; returns what puts it back. */
export async function hideNewerMigrations(at: DbAt, root: string): Promise<() => Promise<void>> {
  const known = knownBy(root);
  const db = await openDb(at.pgUrl ? { databaseUrl: at.pgUrl, pgSchema: at.schema } : { dataDir: at.dataDir });
  const k = db.kysely as unknown as Migrations;
  const rows = await k.selectFrom('kysely_migration').select(['name', 'timestamp']).execute();
  const hidden = rows.filter((r) => !known.has(r.name));
  for (const r of hidden) await k.deleteFrom('kysely_migration').where('name', '=', r.name).execute();
  await db.close();
  return async () => {
    const again = await openDb(at.pgUrl ? { databaseUrl: at.pgUrl, pgSchema: at.schema } : { dataDir: at.dataDir });
    const m = again.kysely as unknown as Migrations;
    for (const r of hidden) await m.insertInto('kysely_migration').values(r).execute();
    await again.close();
  };
}

/**
 * `backup --verify` and `verify-backup FILE`: a backup proven by restoring it, not by its
 * size. The backup is restored into a scratch database beside the deployment (a copy of the
 * SQLite file in a temporary directory; on PostgreSQL a scratch schema in the configured
 * database, each table's rows counted against the backup's), brought to this release's
 * migrations, and checked as `doctor` checks a live one (storage/maintenance/integrity.ts);
 * every attachment the database holds must be in the backup at its size. The deployment is
 * never touched, and the scratch copy is dropped afterwards, even on failure.
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Config } from '../config.ts';
import { type Db, migrate, openDb } from '../storage/db.ts';
import { checkIntegrity } from '../storage/maintenance/integrity.ts';
import { ATTACHMENTS, type OpenedArchive, PG_DIR, SQLITE_FILE, whyNotRestorable } from './backup-archive.ts';
import { reportFindings } from './doctor.ts';
import type { AdminOutput } from './output.ts';
import { restorePg } from './pg-backup.ts';

interface Scratch {
  db: Db;
  where: string;
  drop(): Promise<void>;
}

/** The backup's database restored where nothing else lives; null (said why) when it cannot be. */
async function scratchOf(config: Config, opened: OpenedArchive, out: AdminOutput): Promise<Scratch | null> {
  const { manifest, dir } = opened;
  if (manifest.engine === 'sqlite') {
    const tmp = mkdtempSync(path.join(tmpdir(), 'parley-verify-'));
    copyFileSync(path.join(dir, SQLITE_FILE), path.join(tmp, SQLITE_FILE));
    const db = await openDb({ databaseUrl: null, dataDir: tmp });
    return {
      db,
      where: 'a temporary copy of its SQLite file',
      async drop() {
        try {
          await db.close();
        } finally {
          rmSync(tmp, { recursive: true, force: true });
        }
      },
    };
  }
  const url = config.databaseUrl;
  if (!url || !manifest.postgres) {
    out.error('A PostgreSQL backup is verified in a scratch schema of the configured database: set DATABASE_URL.');
    return null;
  }
  const schema = `parley_verify_${randomBytes(6).toString('hex')}`;
  const dropSchema = async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => c.end());
  };
  try {
    await restorePg(url, schema, path.join(dir, PG_DIR), manifest.postgres, false);
    const db = await openDb({ databaseUrl: url, pgSchema: schema });
    return {
      db,
      where: `the scratch schema ${schema} (each table's rows counted against the backup's)`,
      async drop() {
        try {
          await db.close();
        } finally {
          await dropSchema();
        }
      },
    };
  } catch (e) {
    await dropSchema();
    throw e;
  }
}

/** Complete attachments the restored database names: missing from the backup, or of another size. */
async function blobsOf(db: Db, dir: string): Promise<{ total: number; missing: string[]; wrong: string[] }> {
  const rows = await db.kysely.selectFrom('attachments').select(['id', 'size']).where('complete', '=', 1).execute();
  const missing: string[] = [];
  const wrong: string[] = [];
  for (const r of rows) {
    let size: number | null = null;
    try {
      size = statSync(path.join(dir, ATTACHMENTS, r.id)).size;
    } catch {
      missing.push(r.id);
      continue;
    }
    if (size !== Number(r.size)) wrong.push(r.id);
  }
  return { total: rows.length, missing, wrong };
}

const count = async (db: Db, table: 'users' | 'messages') =>
  Number(
    (
      await db.kysely
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

/** Restores the opened backup into a scratch database and checks it; the exit code (0: it restores whole). */
export async function verifyArchive(config: Config, file: string, opened: OpenedArchive, out: AdminOutput) {
  const refusal = whyNotRestorable(file, opened, opened.manifest.engine);
  if (refusal) {
    out.error(refusal);
    return 1;
  }
  const scratch = await scratchOf(config, opened, out);
  if (!scratch) return 1;
  try {
    out.log(`Verifying ${file}: restored into ${scratch.where}.`);
    const ran = await migrate(scratch.db);
    if (ran.length) out.log(`It opens with this release (${ran.length} newer migration(s) ran on the copy).`);
    let code = reportFindings(await checkIntegrity(scratch.db), out);
    const blobs = await blobsOf(scratch.db, opened.dir);
    if (blobs.wrong.length) {
      out.error(
        `✗ ${blobs.wrong.length} attachment(s) in the backup have another size than recorded (${blobs.wrong.slice(0, 5).join(', ')}).`,
      );
      code = 1;
    }
    // One deleted while the backup was taken is named by the database and gone from the store.
    if (blobs.missing.length)
      out.log(
        `${blobs.missing.length} attachment(s) the database names are not in the backup (deleted while it was taken, or already lost): ${blobs.missing.slice(0, 5).join(', ')}.`,
      );
    const [users, messages] = [await count(scratch.db, 'users'), await count(scratch.db, 'messages')];
    out.log(
      `${code === 0 ? 'Verified' : 'NOT verified'}: ${users.toLocaleString('en-US')} accounts, ${messages.toLocaleString('en-US')} messages, ${(blobs.total - blobs.missing.length).toLocaleString('en-US')} of ${blobs.total.toLocaleString('en-US')} attachments (Parley ${opened.manifest.appVersion}, made ${opened.manifest.createdAt}).`,
    );
    return code;
  } finally {
    await scratch.drop();
  }
}

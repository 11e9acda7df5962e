/**
 * `npm run admin -- backup FILE` and `restore FILE [--force]`: a consistent backup of a running
 * deployment and its restore into an empty one.
 *
 * The backup is a gzipped tar holding:
 * - manifest.json: the format, the engine, the app version and the migrations run;
 * - the database:
 *   - SQLite: `parley.sqlite`, made with SQLite's online backup API, a consistent snapshot
 *     taken while the server writes;
 *   - PostgreSQL: `postgres/`, each table as COPY text, one transaction's snapshot
 *     (pg-backup.ts), which restores into whichever schema the target is configured for;
 * - the secrets that must travel with it: the session secret file of a SQLite deployment.
 *   The VAPID keys and a PostgreSQL deployment's session secret are in the database;
 * - `attachments/`: every complete blob (sealed: the backup opens none of them), from
 *   ATTACHMENT_DIR or the S3 bucket, copied after the database's snapshot. A blob deleted
 *   meanwhile may be missing (its message was being deleted); one completed meanwhile is
 *   extra, and only takes space.
 *
 * Restore refuses a non-empty target (an existing database file, a schema with tables) unless
 * given --force. It checks the backup's engine is the target's: moving from SQLite to
 * PostgreSQL is `migrate-to-postgres`.
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { attachmentIdSchema } from '@app/protocol';
import SQLite from 'better-sqlite3';
import * as tar from 'tar';
import { BlobMissingError } from '../attachments/blob-store.ts';
import { openBlobStore } from '../attachments/open-blob-store.ts';
import { type Config, loadConfig } from '../config.ts';
import { AttachmentStore } from '../storage/attachments/attachment-store.ts';
import { type Db, pendingMigrations } from '../storage/db.ts';
import { migrations } from '../storage/migrations/index.ts';
import { VERSION } from '../version.ts';
import { describeDatabase, openConfiguredDb } from './config-db.ts';
import type { AdminOutput } from './output.ts';
import { dumpPg, type PgDump, restorePg } from './pg-backup.ts';

const FORMAT = 'parley-backup';
/** 2: PostgreSQL as COPY text per table (pg-backup.ts); 1 held a pg_dump archive. */
const FORMAT_VERSION = 2;
const SQLITE_FILE = 'parley.sqlite';
const PG_DIR = 'postgres';
const SECRET_FILE = 'session-secret';
const ATTACHMENTS = 'attachments';

/**
 * Copies the complete blobs the database names from the blob store into `to` (files named by
 * their ids): read after the database's snapshot, so one deleted meanwhile is skipped. How many.
 */
async function saveBlobs(config: Config, to: string): Promise<number> {
  const db = await openConfiguredDb(config);
  try {
    const blobs = await openBlobStore(config);
    mkdirSync(to, { recursive: true, mode: 0o700 });
    let n = 0;
    for (const { id, size } of await new AttachmentStore(db.kysely).completeBlobs()) {
      try {
        await blobs.saveTo(id, size, path.join(to, id));
        n += 1;
      } catch (e) {
        if (!(e instanceof BlobMissingError) && (e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
    return n;
  } finally {
    await db.close();
  }
}

/** The migrations a SQLite database file has run (none: not a Parley database yet). */
function sqliteMigrations(file: string): string[] {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT name FROM kysely_migration ORDER BY name').all() as { name: string }[]).map(
      (r) => r.name,
    );
  } catch {
    return [];
  } finally {
    db.close();
  }
}

/** The migrations a backup's database had run (read from its SQLite file for backups that do not say). */
function migrationsOf(manifest: Manifest, dir: string): string[] {
  if (manifest.migrations) return manifest.migrations;
  if (manifest.postgres) return manifest.postgres.migrations;
  const file = path.join(dir, SQLITE_FILE);
  return existsSync(file) ? sqliteMigrations(file) : [];
}

/** Puts a backup's blobs (files in `from`) in the blob store, in place of every blob there. How many. */
async function loadBlobs(config: Config, from: string): Promise<number> {
  const blobs = await openBlobStore(config);
  await blobs.clear();
  if (!existsSync(from)) return 0;
  const ids = readdirSync(from).filter((name) => attachmentIdSchema.safeParse(name).success);
  for (const id of ids) await blobs.loadFrom(id, path.join(from, id));
  return ids.length;
}

export interface Manifest {
  format: typeof FORMAT;
  version: number;
  engine: Db['engine'];
  appVersion: string;
  createdAt: string;
  /** The session secret came from SESSION_SECRET: it is not in the backup; keep setting it. */
  sessionSecretFromEnv: boolean;
  /** How many attachments' blobs it holds (absent in backups made before attachments). */
  attachments?: number;
  /** The migrations its database had run (absent in backups made before versions were checked). */
  migrations?: string[];
  /** A PostgreSQL backup's tables and migrations (pg-backup.ts). */
  postgres?: PgDump;
}

export const BACKUP_USAGE = `  backup <file>                             a consistent backup of the running deployment
                                            (database and secrets) into <file>, a .tar.gz
  restore <file> [--force]                  restore a backup into an empty DATA_DIR or
                                            database (--force replaces what is there)`;

async function backup(config: Config, file: string, out: AdminOutput): Promise<number> {
  const dir = mkdtempSync(path.join(tmpdir(), 'parley-backup-'));
  try {
    const engine: Db['engine'] = config.databaseUrl ? 'postgres' : 'sqlite';
    const entries = ['manifest.json'];
    let postgres: PgDump | undefined;
    if (config.databaseUrl) {
      mkdirSync(path.join(dir, PG_DIR), { mode: 0o700 });
      postgres = await dumpPg(config.databaseUrl, config.databaseSchema, path.join(dir, PG_DIR));
      entries.push(PG_DIR);
    } else {
      const source = path.join(config.dataDir, SQLITE_FILE);
      if (!existsSync(source)) {
        out.error(`No database at ${source}: nothing to back up.`);
        return 1;
      }
      const db = new SQLite(source, { fileMustExist: true });
      try {
        await db.backup(path.join(dir, SQLITE_FILE));
      } finally {
        db.close();
      }
      entries.push(SQLITE_FILE);
      const secret = path.join(config.dataDir, SECRET_FILE);
      if (!config.sessionSecretFromEnv && existsSync(secret)) {
        copyFileSync(secret, path.join(dir, SECRET_FILE));
        entries.push(SECRET_FILE);
      }
    }
    const blobs = await saveBlobs(config, path.join(dir, ATTACHMENTS));
    if (blobs > 0) entries.push(ATTACHMENTS);
    const manifest: Manifest = {
      format: FORMAT,
      version: FORMAT_VERSION,
      engine,
      appVersion: VERSION,
      createdAt: new Date().toISOString(),
      sessionSecretFromEnv: config.sessionSecretFromEnv,
      attachments: blobs,
      migrations: postgres ? postgres.migrations : sqliteMigrations(path.join(dir, SQLITE_FILE)),
      ...(postgres ? { postgres } : {}),
    };
    writeFileSync(path.join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    // Written beside the target, then moved: a failed backup never leaves half a file under its name.
    const partial = `${file}.partial`;
    await tar.c({ file: partial, cwd: dir, gzip: true, portable: true }, entries);
    // It holds the database and the session secret: the operator's alone.
    chmodSync(partial, 0o600);
    renameSync(partial, file);
    out.log(
      `Backed up the ${engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'} database${blobs > 0 ? ` and ${blobs} attachment(s)` : ''} to ${file}.`,
    );
    if (config.sessionSecretFromEnv) out.log('The session secret comes from SESSION_SECRET: keep it with the backup.');
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function restore(config: Config, file: string, force: boolean, out: AdminOutput): Promise<number> {
  const dir = mkdtempSync(path.join(tmpdir(), 'parley-restore-'));
  try {
    await tar.x({ file, cwd: dir, strict: true });
    const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
    if (manifest.format !== FORMAT || manifest.version > FORMAT_VERSION) {
      out.error(`${file} is not a Parley backup this version can read.`);
      return 1;
    }
    const engine: Db['engine'] = config.databaseUrl ? 'postgres' : 'sqlite';
    if (manifest.engine !== engine) {
      out.error(
        `${file} is a ${manifest.engine} backup and this deployment uses ${engine}. Restore it where it was made (and use migrate-to-postgres to move from SQLite to PostgreSQL).`,
      );
      return 1;
    }
    // A newer release's backup: this code cannot run on what it would restore.
    const newer = migrationsOf(manifest, dir).filter((m) => !(m in migrations));
    if (newer.length > 0) {
      out.error(
        `${file} is a backup of a newer Parley (${manifest.appVersion}, migrations ${newer.join(', ')}). Restore it with that version or a newer one.`,
      );
      return 1;
    }
    if (config.databaseUrl) {
      if (!manifest.postgres) {
        out.error(
          `${file} was made with pg_dump by an earlier Parley: put it back with pg_restore into the schema it came from, then start this version on it.`,
        );
        return 1;
      }
      const refusal = await restorePg(
        config.databaseUrl,
        config.databaseSchema,
        path.join(dir, PG_DIR),
        manifest.postgres,
        force,
      );
      if (refusal) {
        out.error(refusal.refused);
        return 1;
      }
    } else {
      const target = path.join(config.dataDir, SQLITE_FILE);
      if (existsSync(target) && !force) {
        out.error(`${target} exists. Restore into an empty DATA_DIR, or add --force to replace it.`);
        return 1;
      }
      for (const f of [target, `${target}-wal`, `${target}-shm`]) rmSync(f, { force: true });
      copyFileSync(path.join(dir, SQLITE_FILE), target);
      if (existsSync(path.join(dir, SECRET_FILE)))
        copyFileSync(path.join(dir, SECRET_FILE), path.join(config.dataDir, SECRET_FILE));
    }
    // The blobs the restored database names: the store holds those of this backup only.
    await loadBlobs(config, path.join(dir, ATTACHMENTS));
    // The restored database opens and is complete for this code (a newer backup's is refused).
    const db = await openConfiguredDb(config);
    try {
      const pending = await pendingMigrations(db);
      out.log(
        `Restored the backup of ${manifest.createdAt} (Parley ${manifest.appVersion}).${pending.length ? ` ${pending.length} migration(s) run at the next start.` : ''}`,
      );
    } finally {
      await db.close();
    }
    if (manifest.sessionSecretFromEnv) out.log('The backed-up deployment set SESSION_SECRET: set the same one here.');
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `backup FILE` or `restore FILE [--force]`; the exit code. */
export async function runBackupCommand(args: string[], env: NodeJS.ProcessEnv, out: AdminOutput): Promise<number> {
  const [command, file, ...rest] = args;
  if (!file || file.startsWith('--')) {
    out.error(`Give the backup file.\n\n${BACKUP_USAGE}`);
    return 2;
  }
  // A backup reads a deployment and makes nothing; a restore may make one in an empty DATA_DIR.
  const config = loadConfig(env, {}, { create: command === 'restore' });
  out.log(`${command === 'backup' ? 'Backing up the' : 'Restoring into the'} ${describeDatabase(config)}.`);
  try {
    return command === 'backup'
      ? await backup(config, path.resolve(file), out)
      : await restore(config, path.resolve(file), rest.includes('--force'), out);
  } catch (err) {
    out.error(`${command} failed: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}

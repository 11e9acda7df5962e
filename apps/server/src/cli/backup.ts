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
import type { Config } from '../config.ts';
import { AttachmentStore } from '../storage/attachments/attachment-store.ts';
import { type Db, pendingMigrations } from '../storage/db.ts';
import { pgServerConnections, sqliteServerPid } from '../storage/running-server.ts';
import { VERSION } from '../version.ts';
import {
  ATTACHMENTS,
  FORMAT,
  FORMAT_VERSION,
  type Manifest,
  openArchive,
  PG_DIR,
  SECRET_FILE,
  SQLITE_FILE,
  sqliteMigrations,
  whyNotRestorable,
} from './backup-archive.ts';
import { openConfiguredDb } from './config-db.ts';
import type { AdminOutput } from './output.ts';
import { dumpPg, type PgDump, restorePg } from './pg-backup.ts';

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

/** Puts a backup's blobs (files in `from`) in the blob store, in place of every blob there. How many. */
async function loadBlobs(config: Config, from: string): Promise<number> {
  const blobs = await openBlobStore(config);
  await blobs.clear();
  if (!existsSync(from)) return 0;
  const ids = readdirSync(from).filter((name) => attachmentIdSchema.safeParse(name).success);
  for (const id of ids) await blobs.loadFrom(id, path.join(from, id));
  return ids.length;
}

/**
 * Writes a backup of the configured deployment to `file` (moved there whole once written);
 * the exit code. `shownAs`: what the operator is told it is (an encrypted one's final name).
 */
export async function backup(config: Config, file: string, out: AdminOutput, shownAs = file): Promise<number> {
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
    try {
      // Made the owner's alone from its first byte: it holds the database and the session secret.
      await tar.c({ file: partial, cwd: dir, gzip: true, portable: true, mode: 0o600 }, entries);
    } catch (e) {
      rmSync(partial, { force: true });
      throw e;
    }
    // It holds the database and the session secret: the operator's alone.
    chmodSync(partial, 0o600);
    renameSync(partial, file);
    out.log(
      `Backed up the ${engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'} database${blobs > 0 ? ` and ${blobs} attachment(s)` : ''} to ${shownAs}.`,
    );
    if (config.sessionSecretFromEnv) out.log('The session secret comes from SESSION_SECRET: keep it with the backup.');
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Why a restore cannot write now: a server runs on the target, goes on serving what was there
 * and loses what it writes next at its restart (--force or not). Null: none runs.
 */
async function serverRunning(config: Config): Promise<string | null> {
  if (!config.databaseUrl) {
    const pid = sqliteServerPid(config.dataDir);
    return pid === null
      ? null
      : `A Parley server (pid ${pid}) is running on ${config.dataDir}: stop it first. Restoring under it would lose what it writes next.`;
  }
  const n = await pgServerConnections(config.databaseUrl, config.databaseSchema);
  return n === 0
    ? null
    : `Parley servers are running on the schema ${config.databaseSchema ?? 'public'} (${n} connection(s)): stop every one first. Restoring under them would lose what they write next.`;
}

/** Restores the backup `file` (decrypted with `identity` when encrypted) into the configured deployment. */
export async function restore(
  config: Config,
  file: string,
  opts: { force: boolean; identity: string | null },
  out: AdminOutput,
): Promise<number> {
  const opened = await openArchive(file, opts.identity);
  if ('refused' in opened) {
    out.error(opened.refused);
    return 1;
  }
  const { dir, manifest } = opened;
  const force = opts.force;
  try {
    const refusal =
      whyNotRestorable(file, opened, config.databaseUrl ? 'postgres' : 'sqlite') ?? (await serverRunning(config));
    if (refusal) {
      out.error(refusal);
      return 1;
    }
    if (config.databaseUrl && manifest.postgres) {
      const taken = await restorePg(
        config.databaseUrl,
        config.databaseSchema,
        path.join(dir, PG_DIR),
        manifest.postgres,
        force,
      );
      if (taken) {
        out.error(taken.refused);
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
    opened.close();
  }
}

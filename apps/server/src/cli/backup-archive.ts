/**
 * A backup file as restore and verify-backup open it (backup.ts makes it): a gzipped tar with
 * manifest.json first, possibly encrypted to age recipients (backup-crypt.ts: then the
 * operator's identity opens it). Opened into a temporary directory its caller removes.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import * as tar from 'tar';
import type { Db } from '../storage/db.ts';
import { migrations } from '../storage/migrations/index.ts';
import { decryptFile, isAgeFile } from './backup-crypt.ts';
import type { PgDump } from './pg-backup.ts';

export const FORMAT = 'parley-backup';
/** 2: PostgreSQL as COPY text per table (pg-backup.ts); 1 held a pg_dump archive. */
export const FORMAT_VERSION = 2;
export const SQLITE_FILE = 'parley.sqlite';
export const PG_DIR = 'postgres';
export const SECRET_FILE = 'session-secret';
export const ATTACHMENTS = 'attachments';

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

/** The migrations a SQLite database file has run (none: not a Parley database yet). */
export function sqliteMigrations(file: string): string[] {
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
export function migrationsOf(manifest: Manifest, dir: string): string[] {
  if (manifest.migrations) return manifest.migrations;
  if (manifest.postgres) return manifest.postgres.migrations;
  const file = path.join(dir, SQLITE_FILE);
  return existsSync(file) ? sqliteMigrations(file) : [];
}

export interface OpenedArchive {
  /** Where its files are. */
  dir: string;
  manifest: Manifest;
  /** Removes what was unpacked. */
  close(): void;
}

/**
 * Unpacks `file` (decrypted first with the age identities of `identity` when it is
 * encrypted); a refusal says why it cannot be read.
 */
export async function openArchive(file: string, identity: string | null): Promise<OpenedArchive | { refused: string }> {
  const root = mkdtempSync(path.join(tmpdir(), 'parley-restore-'));
  const close = () => rmSync(root, { recursive: true, force: true });
  try {
    let archive = file;
    if (isAgeFile(file)) {
      if (!identity) {
        close();
        return { refused: `${file} is encrypted (age): give the key that opens it, --identity KEYFILE.` };
      }
      archive = path.join(root, 'backup.tar.gz');
      await decryptFile(file, archive, identity);
    }
    const dir = path.join(root, 'unpacked');
    mkdirSync(dir, { mode: 0o700 });
    await tar.x({ file: archive, cwd: dir, strict: true });
    rmSync(path.join(root, 'backup.tar.gz'), { force: true });
    const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
    if (manifest.format !== FORMAT || manifest.version > FORMAT_VERSION) {
      close();
      return { refused: `${file} is not a Parley backup this version can read.` };
    }
    return { dir, manifest, close };
  } catch (e) {
    close();
    throw e;
  }
}

/** Why this code cannot restore the opened backup into a deployment on `engine`, or null. */
export function whyNotRestorable(file: string, opened: OpenedArchive, engine: Db['engine']): string | null {
  const { manifest, dir } = opened;
  if (manifest.engine !== engine) {
    return `${file} is a ${manifest.engine} backup and this deployment uses ${engine}. Restore it where it was made (and use migrate-to-postgres to move from SQLite to PostgreSQL).`;
  }
  // A newer release's backup: this code cannot run on what it would restore.
  const newer = migrationsOf(manifest, dir).filter((m) => !(m in migrations));
  if (newer.length > 0) {
    return `${file} is a backup of a newer Parley (${manifest.appVersion}, migrations ${newer.join(', ')}). Restore it with that version or a newer one.`;
  }
  if (engine === 'postgres' && !manifest.postgres) {
    return `${file} was made with pg_dump by an earlier Parley: put it back with pg_restore into the schema it came from, then start this version on it.`;
  }
  return null;
}

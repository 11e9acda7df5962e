/**
 * The backup commands' arguments and what follows a backup (backup.ts makes and restores one):
 *   backup <file> | --dir <dir>  [--verify] [--encrypt-to age1…]… [--upload] [--keep N]
 *   verify-backup <file> [--identity KEYFILE]
 *   restore <file> [--force] [--identity KEYFILE]
 * In order: the archive is made; verified (backup-verify.ts) before anything else happens to
 * it; encrypted to the age recipients (BACKUP_AGE_RECIPIENTS and --encrypt-to); put in the
 * backup bucket (--upload); and only then, with everything before it done, the backups beyond
 * the newest N are removed (--keep), so a failed run never costs a good old backup.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { s3ClientOf } from '../attachments/s3-blob-store.ts';
import { type Config, loadConfig } from '../config.ts';
import { backup, restore } from './backup.ts';
import { openArchive } from './backup-archive.ts';
import { encryptFile } from './backup-crypt.ts';
import { backupName, pruneBucket, pruneDir, uploadFile } from './backup-ship.ts';
import { verifyArchive } from './backup-verify.ts';
import { describeDatabase, missingDatabase } from './config-db.ts';
import type { AdminOutput } from './output.ts';

export const BACKUP_USAGE = `  backup <file> | --dir <dir> [--verify] [--encrypt-to age1…] [--upload] [--keep N]
                                            a consistent backup of the running deployment
                                            (database, secrets, attachments) into <file>, a
                                            .tar.gz, or into <dir> named by the time;
                                            --verify restores it into a scratch database and
                                            checks it; encrypted to BACKUP_AGE_RECIPIENTS and
                                            each --encrypt-to (.age); --upload puts it in
                                            BACKUP_S3_BUCKET; --keep N then removes all but
                                            the newest N in <dir> (and in the bucket)
  verify-backup <file> [--identity KEYFILE] restore a backup into a scratch database and check
                                            it, touching nothing else (KEYFILE: the age key
                                            of an encrypted one)
  restore <file> [--force] [--identity KEYFILE]
                                            restore a backup into an empty DATA_DIR or
                                            database (--force replaces what is there)`;

interface BackupArgs {
  file: string | null;
  dir: string | null;
  verify: boolean;
  encryptTo: string[];
  upload: boolean;
  keep: number | null;
}

type Parsed<T> = T | { usage: string };

interface Flags {
  values: Map<string, string[]>;
  flags: Set<string>;
  positional: string[];
}

/** Each `--flag value` and bare `--flag` of `args`; positionals apart. */
function parseFlags(args: string[], withValue: readonly string[], bare: readonly string[]): Parsed<Flags> {
  const values = new Map<string, string[]>();
  const flags = new Set<string>();
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (withValue.includes(a)) {
      const v = args[++i];
      if (v === undefined || v.startsWith('--')) return { usage: `${a} takes a value.` };
      values.set(a, [...(values.get(a) ?? []), v]);
    } else if (bare.includes(a)) flags.add(a);
    else if (a.startsWith('--')) return { usage: `Unknown option "${a}".` };
    else positional.push(a);
  }
  return { values, flags, positional };
}

function parseBackup(args: string[]): Parsed<BackupArgs> {
  const p = parseFlags(args, ['--dir', '--encrypt-to', '--keep'], ['--verify', '--upload']);
  if ('usage' in p) return { usage: p.usage };
  const dir = p.values.get('--dir')?.at(-1) ?? null;
  const file = p.positional[0] ?? null;
  if ((file === null) === (dir === null) || p.positional.length > 1)
    return { usage: 'Give the backup file, or --dir.' };
  const keepArg = p.values.get('--keep')?.at(-1);
  const keep = keepArg === undefined ? null : Number(keepArg);
  if (keep !== null && !(Number.isInteger(keep) && keep >= 1))
    return { usage: '--keep takes a whole number, 1 or more.' };
  if (keep !== null && dir === null) return { usage: '--keep goes with --dir (it prunes the backups named by time).' };
  const encryptTo = p.values.get('--encrypt-to') ?? [];
  const bad = encryptTo.find((r) => !/^age1[0-9a-z]+$/.test(r));
  if (bad) return { usage: `--encrypt-to takes an age public key (age1…), not "${bad}".` };
  return { file, dir, verify: p.flags.has('--verify'), encryptTo, upload: p.flags.has('--upload'), keep };
}

/** Restores the archive just made into a scratch database and checks it; a failed one is set aside. */
async function verifyMade(config: Config, plain: string, target: string, encrypted: boolean, out: AdminOutput) {
  const opened = await openArchive(plain, null);
  if ('refused' in opened) throw new Error(opened.refused);
  try {
    const what = encrypted ? 'the backup (before it is encrypted)' : target;
    if ((await verifyArchive(config, what, opened, out)) === 0) return true;
  } finally {
    opened.close();
  }
  // Not under a backup's name: it must not count among the newest N, nor be taken for one.
  if (!encrypted) renameSync(target, `${target}.failed`);
  out.error(`The backup did not verify${encrypted ? '' : `: kept as ${target}.failed`}; older ones are kept.`);
  return false;
}

async function encryptAs(plain: string, target: string, recipients: readonly string[], out: AdminOutput) {
  await encryptFile(plain, `${target}.partial`, recipients).catch((e: unknown) => {
    rmSync(`${target}.partial`, { force: true });
    throw e;
  });
  renameSync(`${target}.partial`, target);
  out.log(`Encrypted to ${recipients.length} age recipient(s): ${target}.`);
}

/** Uploads (with --upload), then prunes (with --keep): only once everything before succeeded. */
async function shipAndPrune(config: Config, a: BackupArgs, target: string, out: AdminOutput) {
  const s3 = a.upload && config.backupS3 ? { settings: config.backupS3, client: s3ClientOf(config.backupS3) } : null;
  if (s3) {
    const key = `${s3.settings.prefix}${path.basename(target)}`;
    await uploadFile(s3.client, s3.settings, target, key);
    out.log(`Uploaded to s3://${s3.settings.bucket}/${key}.`);
  }
  if (a.keep !== null && a.dir) {
    const gone = pruneDir(a.dir, a.keep);
    if (s3) gone.push(...(await pruneBucket(s3.client, s3.settings, a.keep)));
    out.log(`Kept the newest ${a.keep}; removed ${gone.length ? gone.join(', ') : 'nothing'}.`);
  }
}

/** Makes, verifies, encrypts, uploads and prunes, in that order; the exit code. */
async function runBackup(config: Config, a: BackupArgs, out: AdminOutput): Promise<number> {
  const recipients = [...new Set([...config.backupAgeRecipients, ...a.encryptTo])];
  const encrypted = recipients.length > 0;
  if (a.upload && !config.backupS3) {
    out.error('--upload needs BACKUP_S3_BUCKET (and the other BACKUP_S3_* settings).');
    return 1;
  }
  const missing = missingDatabase(config);
  if (missing) {
    out.error(missing);
    return 1;
  }
  if (a.dir) mkdirSync(a.dir, { recursive: true, mode: 0o700 });
  const target = path.resolve(a.file ?? path.join(a.dir as string, backupName(new Date(), encrypted)));
  const work = mkdtempSync(path.join(tmpdir(), 'parley-backup-out-'));
  try {
    // Made beside the target when it stays as it is; in a scratch folder when it is encrypted first.
    const plain = encrypted ? path.join(work, 'backup.tar.gz') : target;
    const made = await backup(config, plain, out, encrypted ? `${target}, once encrypted` : target);
    if (made !== 0) return made;
    if (a.verify && !(await verifyMade(config, plain, target, encrypted, out))) return 1;
    if (encrypted) await encryptAs(plain, target, recipients, out);
    await shipAndPrune(config, a, target, out);
    return 0;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** `verify-backup FILE [--identity KEYFILE]` and `restore FILE [--force] [--identity KEYFILE]`. */
async function runFromBackup(command: string, config: Config, args: string[], out: AdminOutput): Promise<number> {
  const p = parseFlags(args, ['--identity'], command === 'restore' ? ['--force'] : []);
  if ('usage' in p || p.positional.length !== 1) {
    out.error(`${'usage' in p ? `${p.usage} ` : ''}Give the backup file.\n\n${BACKUP_USAGE}`);
    return 2;
  }
  const file = path.resolve(p.positional[0] as string);
  const identity = p.values.get('--identity')?.at(-1) ?? null;
  if (command === 'restore') return restore(config, file, { force: p.flags.has('--force'), identity }, out);
  const opened = await openArchive(file, identity);
  if ('refused' in opened) {
    out.error(opened.refused);
    return 1;
  }
  try {
    return await verifyArchive(config, file, opened, out);
  } finally {
    opened.close();
  }
}

/** `backup …`, `verify-backup …` or `restore …`; the exit code. */
export async function runBackupCommand(args: string[], env: NodeJS.ProcessEnv, out: AdminOutput): Promise<number> {
  const [command = '', ...rest] = args;
  const parsed = command === 'backup' ? parseBackup(rest) : null;
  if (parsed && 'usage' in parsed) {
    out.error(`${parsed.usage}\n\n${BACKUP_USAGE}`);
    return 2;
  }
  try {
    // A backup or a verification reads a deployment and makes nothing; a restore may make one in an empty DATA_DIR.
    const config = loadConfig(env, {}, { create: command === 'restore' });
    // A verification names where its scratch copy goes itself (backup-verify.ts).
    if (command !== 'verify-backup')
      out.log(`${command === 'backup' ? 'Backing up the' : 'Restoring into the'} ${describeDatabase(config)}.`);
    return parsed ? await runBackup(config, parsed, out) : await runFromBackup(command, config, rest, out);
  } catch (err) {
    out.error(`${command} failed: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}

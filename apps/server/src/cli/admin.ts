/**
 * Account chores from the shell, for an operator without SMTP yet:
 *   npm run admin -- verify-email you@example.com [--yes]
 *   npm run admin -- reset-password you@example.com [--password NEW]
 *   npm run admin -- purge-plaintext [--before YYYY-MM-DD] [--yes]
 *   npm run admin -- backup FILE | verify-backup FILE | restore FILE   (backup-command.ts)
 *   npm run admin -- migrate-to-postgres --to URL            (migrate-to-postgres.ts)
 *   npm run admin -- import-rtdb export.json [--no-email]    (import-rtdb.ts)
 *   npm run admin -- config check | version                  (config-command.ts)
 *   npm run admin -- users list|find|create|block|unblock|revoke-sessions|delete  (users-command.ts)
 *   npm run admin -- broadcast MESSAGE | help-link URL|--clear (broadcast-command.ts)
 *   npm run admin -- doctor                                  (doctor.ts)
 * It opens the same database as the server (DATA_DIR or DATABASE_URL from the environment).
 */
import { emailSchema, passwordSchema } from '@app/protocol';
import type { Config } from '../config.ts';
import { AccountStore } from '../storage/accounts/account-store.ts';
import { AdminStore } from '../storage/accounts/admin-store.ts';
import { KeyStore } from '../storage/accounts/key-store.ts';
import type { Db } from '../storage/db.ts';
import {
  compact,
  countPlaintext,
  type PlaintextCounts,
  purgePlaintext,
} from '../storage/maintenance/plaintext-purge.ts';
import { BACKUP_USAGE, runBackupCommand } from './backup-command.ts';
import { BROADCAST_USAGE, runBroadcast, runHelpLink } from './broadcast-command.ts';
import { CONFIG_USAGE, runConfigCheck, runVersion } from './config-command.ts';
import { confirmed } from './confirm.ts';
import { withDeployment } from './deployment.ts';
import { DOCTOR_USAGE, runDoctor } from './doctor.ts';
import { IMPORT_USAGE, runImportRtdb } from './import-rtdb.ts';
import { MIGRATE_USAGE, runMigrateToPostgres } from './migrate-to-postgres.ts';
import type { AdminOutput } from './output.ts';
import { randomPassword, shellCredentials } from './shell-credentials.ts';
import { runUsersCommand, USERS_USAGE } from './users-command.ts';

export const ADMIN_USAGE = `Usage: npm run admin -- <command>

  verify-email <email> [--yes]              mark the account's e-mail address verified (it
                                            shows the account and asks first; --yes skips
                                            the question)
  reset-password <email> [--password NEW] [--yes]
                                            set a new password (a random one is printed
                                            when none is given) and end every session;
                                            messages from before stay locked until the
                                            user unlocks them (it says so and asks first)
  purge-plaintext [--before YYYY-MM-DD] [--yes]
                                            remove the message text left from before
                                            end-to-end encryption (of users who never came
                                            back to re-encrypt it; --before: only rows
                                            created before that day, UTC), empty the update
                                            log, then compact the database (VACUUM); best
                                            run with the server stopped (it says what it
                                            finds and asks first)

${USERS_USAGE}
${BROADCAST_USAGE}

${BACKUP_USAGE}
${MIGRATE_USAGE}
${IMPORT_USAGE}
${CONFIG_USAGE}
${DOCTOR_USAGE}

Uses DATA_DIR (default ./data) or DATABASE_URL, like the server, from the environment or\nfrom .env in the working directory; says which database before it writes.`;

export type { AdminOutput } from './output.ts';

type Command =
  | { name: 'verify-email'; email: string; yes: boolean }
  | { name: 'reset-password'; email: string; password: string | null; yes: boolean }
  | { name: 'purge-plaintext'; before: string | null; yes: boolean };
type User = NonNullable<Awaited<ReturnType<AccountStore['userByEmail']>>>;

/** The command line as a command, or the exit code of a usage error (after saying why). */
function parseArgs(args: string[], out: AdminOutput): Command | number {
  const [command, emailArg, ...rest] = args;
  if (command === undefined || command === 'help' || command === '--help') {
    out.log(ADMIN_USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command === 'purge-plaintext') return parsePurge(args.slice(1), out);
  if (command !== 'verify-email' && command !== 'reset-password') {
    out.error(`Unknown command "${command}".\n\n${ADMIN_USAGE}`);
    return 2;
  }
  const email = emailSchema.safeParse(emailArg ?? '');
  if (!email.success) {
    out.error(`Give the account's e-mail address.\n\n${ADMIN_USAGE}`);
    return 2;
  }
  const yes = rest.includes('--yes');
  if (command === 'verify-email') return { name: command, email: email.data, yes };
  const i = rest.indexOf('--password');
  if (i < 0) return { name: command, email: email.data, password: null, yes };
  const parsed = passwordSchema.safeParse(rest[i + 1] ?? '');
  if (!parsed.success) {
    out.error(parsed.error.issues[0]?.message ?? 'Invalid password');
    return 2;
  }
  return { name: command, email: email.data, password: parsed.data, yes };
}

/** `purge-plaintext [--before YYYY-MM-DD] [--yes]`: the day must exist (2023-02-30 does not). */
function parsePurge(args: string[], out: AdminOutput): Command | number {
  let before: string | null = null;
  let yes = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--yes') yes = true;
    else if (arg === '--before') {
      const day = args[++i] ?? '';
      if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(day)) || isoDay(Date.parse(day)) !== day) {
        out.error(`--before takes a day, YYYY-MM-DD (got "${day}").\n\n${ADMIN_USAGE}`);
        return 2;
      }
      before = day;
    } else {
      out.error(`Unknown option "${arg}" for purge-plaintext.\n\n${ADMIN_USAGE}`);
      return 2;
    }
  }
  return { name: 'purge-plaintext', before, yes };
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

async function verifyEmail(db: Db, user: User, adminEmail: string, yes: boolean, out: AdminOutput): Promise<number> {
  const admin = user.email.toLowerCase() === adminEmail;
  out.log(
    `Account @${user.username} (${user.name}), created ${new Date(user.createdAt).toISOString()}, e-mail ${user.email}.`,
  );
  if (admin) out.log(`Verifying this address makes @${user.username} the administrator (ADMIN_EMAIL).`);
  if (!(await confirmed(`Verify ${user.email}? [y/N] `, yes, out))) return 1;
  await new AccountStore(db).setEmailVerified(user.id, user.email);
  await new AdminStore(db.kysely).recordShell('shell.verifyEmail', user, Date.now());
  out.log(`Verified ${user.email} (@${user.username}).`);
  if (admin) out.log('This account is the administrator (ADMIN_EMAIL).');
  return 0;
}

/** What a reset does to end-to-end encrypted history (the reset page says the same). */
export const RESET_LOCKS_HISTORY =
  "The password protects the account's encryption keys. After a reset, a browser the user signed in with before keeps them; any other browser starts new keys (the old ones stay archived for an unlock with the old password).";

async function resetPassword(
  db: Db,
  config: Config,
  user: User,
  command: { password: string | null; yes: boolean },
  out: AdminOutput,
): Promise<number> {
  const store = new AccountStore(db);
  out.log(`Account @${user.username} (${user.name}), e-mail ${user.email}.`);
  out.log(RESET_LOCKS_HISTORY);
  if (!(await confirmed(`Reset the password of ${user.email}? [y/N] `, command.yes, out))) return 1;
  const newPassword = command.password ?? randomPassword();
  // The CLI derives `auth` as a browser would (same KDF, a new salt); the password is not stored.
  const stored = await shellCredentials(config, newPassword);
  await new KeyStore(db.kysely).resetPassword(user.id, stored, Date.now());
  const ended = await store.deleteUserSessions(user.id);
  await new AdminStore(db.kysely).recordShell('shell.resetPassword', user, Date.now());
  out.log(`New password set for ${user.email} (@${user.username}); ${ended} session(s) ended.`);
  if (command.password === null) out.log(`Password: ${newPassword}`);
  return 0;
}

const counted = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

function describePlaintext(c: PlaintextCounts): string {
  return `${counted(c.messages, 'message', 'messages')}, ${counted(c.summaries, 'chat summary', 'chat summaries')} and ${counted(c.requests, 'request text', 'request texts')}`;
}

/** What a purge leaves behind (the release notes say the same). */
export const PURGE_BACKUPS =
  'Backups (and copies, replicas or archived PostgreSQL WAL) taken before this still hold the plaintext: rotate them.';

async function purgeCommand(db: Db, command: { before: string | null; yes: boolean }, out: AdminOutput) {
  const before = command.before === null ? null : Date.parse(command.before);
  const found = await countPlaintext(db.kysely, before);
  const scope = command.before === null ? '' : ` (rows created before ${command.before}, UTC)`;
  out.log(`Plaintext from before end-to-end encryption${scope}: ${describePlaintext(found)}.`);
  out.log(
    `The update log holds ${counted(found.updates, 'entry', 'entries')}: it is emptied, and every client reloads its chats once.`,
  );
  out.log(
    'Purged messages show as deleted. This cannot be undone. The database is then compacted, which holds its write lock: best with the server stopped.',
  );
  if (!(await confirmed('Purge the plaintext? [y/N] ', command.yes, out))) return 1;
  const purged = await purgePlaintext(db.kysely, before);
  out.log(
    `Purged ${describePlaintext(purged)}, and ${counted(purged.updates, 'update-log entry', 'update-log entries')}.`,
  );
  const done = await compact(db);
  let code = 0;
  if (done.engine === 'postgres') out.log(`Compacted: VACUUM FULL ${done.tables.join(', ')}.`);
  else if (done.walTruncated) out.log('Compacted: VACUUM with secure_delete on; the WAL file truncated.');
  else {
    out.error(
      'Compacted (VACUUM), but the WAL file, which may still hold old pages, could not be truncated: another process has the database open. Stop the server and run this command again.',
    );
    code = 1;
  }
  out.log(PURGE_BACKUPS);
  return code;
}

/** Runs one command; returns the exit code (0 done, 1 refused, 2 usage). */
export async function runAdmin(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  out: AdminOutput = { log: (l) => console.log(l), error: (l) => console.error(l) },
): Promise<number> {
  if (args[0] === 'backup' || args[0] === 'restore' || args[0] === 'verify-backup')
    return runBackupCommand(args, env, out);
  if (args[0] === 'migrate-to-postgres') return runMigrateToPostgres(args.slice(1), env, out);
  if (args[0] === 'import-rtdb') return runImportRtdb(args.slice(1), env, out);
  if (args[0] === 'config') return runConfigCheck(args.slice(1), env, out);
  if (args[0] === 'version') return runVersion(out);
  if (args[0] === 'users') return runUsersCommand(args.slice(1), env, out);
  if (args[0] === 'broadcast') return runBroadcast(args.slice(1), env, out);
  if (args[0] === 'help-link') return runHelpLink(args.slice(1), env, out);
  if (args[0] === 'doctor') return runDoctor(args.slice(1), env, out);
  const command = parseArgs(args, out);
  if (typeof command === 'number') return command;
  return withDeployment(env, out, async (db, config) => {
    if (command.name === 'purge-plaintext') return purgeCommand(db, command, out);
    const user = await new AccountStore(db).userByEmail(command.email);
    if (!user) {
      out.error(`No account has the e-mail address ${command.email}.`);
      return 1;
    }
    return command.name === 'verify-email'
      ? verifyEmail(db, user, config.adminEmail, command.yes, out)
      : resetPassword(db, config, user, command, out);
  });
}

/**
 * `npm run admin -- import-rtdb export.json [--no-email]` (issue 16): moves the original
 * app's users and their chats into Parley from a JSON export of its tree database (spec
 * section 3). The passes are rtdb-importer.ts; this is the command: its arguments, the
 * set-password e-mails, and the report.
 *
 * Passwords lived in the original's authentication service, not in the tree: an imported
 * account has none (sign-in refuses it), and its owner gets a "Set your Parley password"
 * e-mail whose link opens the reset page (a reset token, valid SET_PASSWORD_DAYS days).
 * With --no-email none is sent and nothing secret is printed: the operator gives each user a
 * password with `npm run admin -- reset-password EMAIL`.
 *
 * Progress goes to stderr, the report to stdout. Exit code 0 when the file was read through
 * (skipped records are listed, not fatal), 1 when it could not be, or a chat's write failed
 * (nothing of that chat is written; run it again), 2 on a usage error.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { EMAIL_LINK_PATHS, FIRST_PASSWORD_PARAM } from '@app/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { hashToken, newToken } from '../auth/tokens.ts';
import { type Config, loadConfig } from '../config.ts';
import { createMailer, type Mailer } from '../mail/mailer.ts';
import { setPasswordMail } from '../mail/templates.ts';
import { AccountStore } from '../storage/accounts/account-store.ts';
import { type Db, migrate } from '../storage/db.ts';
import { RtdbImportStore } from '../storage/maintenance/rtdb-import-store.ts';
import { describeDatabase, openConfiguredDb } from './config-db.ts';
import type { AdminOutput } from './output.ts';
import { type NewAccount, RtdbImporter } from './rtdb-importer.ts';
import type { ImportCounts } from './rtdb-records.ts';

export const IMPORT_USAGE = `  import-rtdb <export.json> [--no-email]   import the original app's users, chats, contacts,
                                            requests, broadcasts and help link from a JSON
                                            export of its database (run it again, on a newer
                                            export too: what is new comes in, nothing
                                            doubles); each new account is e-mailed a link
                                            to set its password (--no-email: none; use
                                            reset-password)`;

/** Set-password e-mails handed over before the next ones are queued. */
const MAIL_BATCH = 50;

/** How long a set-password link works. */
export const SET_PASSWORD_DAYS = 7;

export interface ImportOptions {
  file: string;
  email: boolean;
  /** Tests only: runs inside each chat's transaction once its messages are written. */
  faultAfterMessages?: (sourceChatId: string) => void;
}

/** The secret e-mail tokens are stored under, as the server finds it (services.ts). */
async function tokenSecret(config: Config, store: AccountStore): Promise<string> {
  return config.databaseUrl && !config.sessionSecretFromEnv
    ? store.sharedSetting('internal:sessionSecret', config.sessionSecret)
    : config.sessionSecret;
}

/** A mailer that says nothing but failures (the outbox logs links, which are secrets). */
function quietMailer(config: Config, out: AdminOutput): Mailer {
  const log = {
    info() {},
    error(o: { mail?: { to?: string } }, msg: string) {
      out.error(`${msg}${o.mail?.to ? ` (${o.mail.to})` : ''}`);
    },
  } as unknown as FastifyBaseLogger;
  return createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, dataDir: config.dataDir, log });
}

const n = (x: number) => x.toLocaleString('en-US');

/** What the run brought, record by record. */
function reportCounts(c: ImportCounts, what: string, out: AdminOutput): void {
  out.log(`Import of ${what}:`);
  out.log(`  accounts: ${n(c.users)} created, ${n(c.usersBefore)} imported before`);
  out.log(
    `  chats: ${n(c.chats)} imported with ${n(c.messages)} messages, ${n(c.chatsBefore)} imported before${c.chatsFailed ? `, ${n(c.chatsFailed)} failed` : ''}`,
  );
  if (c.chatsGrown)
    out.log(`  newer messages: ${n(c.newerMessages)} in ${n(c.chatsGrown)} of the chats imported before`);
  if (c.chatsWithDeleted)
    out.log(
      `  ${n(c.chatsWithDeleted)} chat(s) with an account deleted in the original: imported, its peer shown as a deleted account`,
    );
  out.log(
    `  contacts: ${n(c.contacts)}; requests: ${n(c.requests)}; broadcasts: ${n(c.broadcasts)}; privacy settings: ${n(c.privacy)}; help link: ${c.helpLink ? 'set' : 'unchanged'}`,
  );
}

/** Runs the import on an open, migrated database; returns the exit code. */
export async function importRtdb(db: Db, config: Config, opts: ImportOptions, out: AdminOutput): Promise<number> {
  const store = new AccountStore(db);
  const importStore = new RtdbImportStore(db.kysely);
  importStore.faultAfterMessages = opts.faultAfterMessages ?? null;
  let mailer = opts.email ? quietMailer(config, out) : null;
  const secret = mailer ? await tokenSecret(config, store) : '';
  let mailed = 0;
  let blocked = 0;
  async function created(a: NewAccount) {
    if (!mailer) return;
    // A blocked account could not sign in with it: no invitation (reset-password, once unblocked).
    if (a.blocked) {
      blocked++;
      return;
    }
    const token = newToken();
    const now = Date.now();
    await store.createEmailToken({
      tokenHash: hashToken(secret, token),
      userId: a.id,
      kind: 'reset',
      email: a.email,
      createdAt: now,
      expiresAt: now + SET_PASSWORD_DAYS * 24 * 60 * 60 * 1000,
    });
    const url = `${config.publicUrl}${EMAIL_LINK_PATHS.reset}?token=${token}&${FIRST_PASSWORD_PARAM}=1`;
    mailer.send(setPasswordMail(a.email, a.name, a.username, url, SET_PASSWORD_DAYS));
    mailed++;
    // At most MAIL_BATCH on their way at once (each is an SMTP connection).
    if (mailed % MAIL_BATCH === 0) {
      await mailer.drain();
      mailer = quietMailer(config, out);
    }
  }
  const importer = new RtdbImporter(importStore, { progress: (l) => out.error(l), created });
  let fatal: string | null = null;
  try {
    await importer.run(opts.file);
  } catch (e) {
    fatal = e instanceof Error ? e.message : String(e);
  } finally {
    await mailer?.drain();
  }
  const c = importer.counts;
  reportCounts(c, `${opts.file}${fatal ? ' (stopped early)' : ''}`, out);
  if (c.typing) out.log(`  typing flags: ${n(c.typing)} ignored (they are not kept)`);
  if (mailer) {
    const where =
      mailer.mode === 'smtp' ? 'sent' : `saved to ${path.join(config.dataDir, 'outbox')} (no SMTP_URL): send them on`;
    out.log(`  "Set your password" e-mails: ${n(mailed)} ${where}; their links work for ${SET_PASSWORD_DAYS} days`);
    if (blocked) out.log(`  ${n(blocked)} blocked account(s) were not e-mailed (unblock, then use reset-password)`);
  } else if (c.users) {
    out.log(
      `  --no-email: no e-mail sent. The new accounts have no password yet: give each one with \`npm run admin -- reset-password EMAIL\`.`,
    );
  }
  out.log(
    '  Messages are kept as from before end-to-end encryption: each sender re-encrypts their own when they sign in.',
  );
  if (importer.skipped.length) {
    out.log(`Skipped ${n(importer.skipped.length)} record(s):`);
    for (const s of importer.skipped) out.log(`  ${s}`);
  }
  for (const f of importer.failed) out.error(`Chat not imported (nothing of it written): ${f}`);
  if (importer.failed.length) out.error('Run the import again to retry the chats that failed.');
  if (fatal) {
    out.error(`Import stopped: ${fatal}. What was imported stays; run it again once fixed (nothing doubles).`);
    return 1;
  }
  return importer.failed.length ? 1 : 0;
}

/** `import-rtdb FILE [--no-email]`; the exit code. */
export async function runImportRtdb(args: string[], env: NodeJS.ProcessEnv, out: AdminOutput): Promise<number> {
  const files = args.filter((a) => !a.startsWith('--'));
  const unknown = args.filter((a) => a.startsWith('--') && a !== '--no-email');
  if (files.length !== 1 || unknown.length) {
    out.error(`${unknown.length ? `Unknown option "${unknown[0]}". ` : ''}Give the export file.\n\n${IMPORT_USAGE}`);
    return 2;
  }
  const file = path.resolve(files[0] as string);
  if (!existsSync(file)) {
    out.error(`No file at ${file}.`);
    return 1;
  }
  const config = loadConfig(env);
  out.log(`Importing into the ${describeDatabase(config)}.`);
  const db = await openConfiguredDb(config);
  try {
    await migrate(db);
    return await importRtdb(db, config, { file, email: !args.includes('--no-email') }, out);
  } finally {
    await db.close();
  }
}

/**
 * `npm run admin -- users …`: the admin area's Users tab from the shell. It lists and finds
 * accounts, creates one (its password derived as a browser would, never stored; the browser
 * makes its keys at the first sign-in), and blocks, unblocks, signs out or deletes one
 * (users-actions.ts). Exit codes: 0 done, 1 refused (no such account, taken, not
 * confirmed), 2 usage.
 */
import {
  adminUsersQuerySchema,
  ageSchema,
  emailSchema,
  handleKey,
  nameSchema,
  passwordSchema,
  phoneSchema,
  usernameSchema,
} from '@app/protocol';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { AccountStore } from '../storage/accounts/account-store.ts';
import { AdminStore, type ShellUser } from '../storage/accounts/admin-store.ts';
import { TakenError, type User } from '../storage/accounts/users.ts';
import type { Db } from '../storage/db.ts';
import { optionValue, parseOptions } from './args.ts';
import { withDeployment } from './deployment.ts';
import type { AdminOutput } from './output.ts';
import { randomPassword, shellCredentials } from './shell-credentials.ts';
import { type Action, act, cell, counted, type Who, when } from './users-actions.ts';

export const USERS_USAGE = `  users list [--blocked] [--limit N]        the accounts, newest first (the 50 newest unless
                                            --limit): handle, name, e-mail, whether it is
                                            verified, badge, blocked, created, last seen
                                            (--blocked: only the blocked ones)
  users find <text> [--blocked] [--limit N]
                                            the same, of the accounts whose handle, name or
                                            e-mail contains the text
  users create <email> <username> [--name NAME] [--password P] [--verified-email]
               [--phone PHONE] [--age N]    make an account (a random password is printed
                                            when none is given; the name defaults to the
                                            handle); it signs in with that password and its
                                            browser makes its keys then
  users block <@handle|email> [--yes]       end every session of the account and refuse its
                                            sign-ins, as /admin's Block does (asks first)
  users unblock <@handle|email>             let a blocked account sign in again
  users revoke-sessions <@handle|email> [--yes]
                                            sign the account out everywhere (asks first)
  users reset-2fa <@handle|email> [--yes]   turn two-step verification off for an owner
                                            who lost every device and code (recognise them
                                            another way first; asks first)
  users delete <@handle|email> [--yes]      delete the account for good, as its owner can:
                                            its messages, chats, contacts, keys and
                                            attachments (asks first)`;

/** How many accounts `users list` shows unless --limit says otherwise. */
export const LIST_DEFAULT = 50;
const LIST_MAX = 100_000;

type UsersCommand =
  | { name: 'list'; query: string; blockedOnly: boolean; limit: number }
  | {
      name: 'create';
      email: string;
      username: string;
      fullName: string;
      password: string | null;
      verifiedEmail: boolean;
      phone: string | null;
      age: number | null;
    }
  | { name: Action; who: Who; yes: boolean };

const firstIssue = (e: z.ZodError) => e.issues[0]?.message ?? 'Invalid input';

function parseList(sub: 'list' | 'find', args: string[]): UsersCommand | string {
  const p = parseOptions(args, { '--blocked': 'flag', '--limit': 'value' }, `users ${sub}`);
  if (typeof p === 'string') return p;
  if (sub === 'list' && p.words.length > 0) return `Unexpected argument "${p.words[0]}" for users list.`;
  if (sub === 'find' && (p.words.length !== 1 || handleKey(p.words[0] ?? '') === '')) {
    return 'Give the text to find, as one argument (in quotes if it has spaces).';
  }
  const query = adminUsersQuerySchema.safeParse({ query: p.words[0] ?? '' });
  if (!query.success) return firstIssue(query.error);
  const limitText = optionValue(p, '--limit');
  const limit = limitText === null ? LIST_DEFAULT : Number(limitText);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > LIST_MAX) {
    return `--limit takes a number from 1 to ${LIST_MAX} (got "${limitText}").`;
  }
  return { name: 'list', query: query.data.query, blockedOnly: p.options.has('--blocked'), limit };
}

/** The fields as sign-up checks them (the same schemas), except the password, which may be left to us. */
const createSchema = z.object({
  email: emailSchema,
  username: usernameSchema,
  name: nameSchema,
  password: passwordSchema.nullable(),
  phone: phoneSchema.nullable(),
  age: ageSchema.nullable(),
});

function parseCreate(args: string[]): UsersCommand | string {
  const p = parseOptions(
    args,
    { '--name': 'value', '--password': 'value', '--verified-email': 'flag', '--phone': 'value', '--age': 'value' },
    'users create',
  );
  if (typeof p === 'string') return p;
  if (p.words.length !== 2) return 'Give the e-mail address and the handle: users create <email> <username>.';
  const username = (p.words[1] as string).trim().replace(/^@/, '');
  const age = optionValue(p, '--age');
  const r = createSchema.safeParse({
    email: p.words[0],
    username,
    name: optionValue(p, '--name') ?? username,
    password: optionValue(p, '--password'),
    phone: optionValue(p, '--phone'),
    age: age === null ? null : Number(age),
  });
  if (!r.success) return firstIssue(r.error);
  const { name, ...fields } = r.data;
  return { name: 'create', ...fields, fullName: name, verifiedEmail: p.options.has('--verified-email') };
}

/** `@handle`, `handle` or an e-mail address (any text with '@' past its start). */
function parseWho(word: string): Who | string {
  const w = word.trim();
  if (w.includes('@') && !w.startsWith('@')) {
    const email = emailSchema.safeParse(w);
    return email.success ? { email: email.data } : `"${w}" is not an e-mail address.`;
  }
  const handle = usernameSchema.safeParse(w.replace(/^@/, ''));
  return handle.success ? { username: handle.data } : `"${w}" is neither an @handle nor an e-mail address.`;
}

function parseAction(sub: Action, args: string[]): UsersCommand | string {
  const p = parseOptions(args, { '--yes': 'flag' }, `users ${sub}`);
  if (typeof p === 'string') return p;
  if (p.words.length !== 1) return `Give the account: users ${sub} <@handle|email>.`;
  const who = parseWho(p.words[0] as string);
  return typeof who === 'string' ? who : { name: sub, who, yes: p.options.has('--yes') };
}

function parseUsers(args: string[]): UsersCommand | string {
  const [sub, ...rest] = args;
  if (sub === 'list' || sub === 'find') return parseList(sub, rest);
  if (sub === 'create') return parseCreate(rest);
  if (sub === 'block' || sub === 'unblock' || sub === 'revoke-sessions' || sub === 'reset-2fa' || sub === 'delete') {
    return parseAction(sub, rest);
  }
  return sub === undefined ? 'Give a users command.' : `Unknown users command "${sub}".`;
}

// ---- output ------------------------------------------------------------------------------

const yesNo = (b: boolean) => (b ? 'yes' : 'no');

const HEADER = ['HANDLE', 'NAME', 'E-MAIL', 'E-MAIL VERIFIED', 'BADGE', 'BLOCKED', 'CREATED', 'LAST SEEN'];

function rowOf(u: ShellUser): string[] {
  return [
    `@${u.username}`,
    cell(u.name, 24),
    cell(u.email, 40),
    yesNo(u.emailVerified),
    yesNo(u.verified),
    yesNo(u.blocked),
    when(u.createdAt),
    u.lastSeen === null ? 'never' : when(u.lastSeen),
  ];
}

/** Rows as columns two spaces apart. */
export function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd(),
  );
}

async function listUsers(db: Db, c: Extract<UsersCommand, { name: 'list' }>, out: AdminOutput): Promise<number> {
  const { users, total } = await new AdminStore(db.kysely).newestUsers({
    query: c.query,
    blockedOnly: c.blockedOnly,
    limit: c.limit,
  });
  const which = `${c.blockedOnly ? 'blocked ' : ''}account`;
  const matching = c.query ? ` matching "${cell(c.query)}"` : '';
  if (users.length === 0) {
    out.log(`No ${which}${matching}.`);
    return 0;
  }
  for (const line of table([HEADER, ...users.map(rowOf)])) out.log(line);
  const more = users.length < total ? ' (--limit N shows more)' : '';
  out.log(`${users.length} of ${counted(total, which)}${matching}, newest first; times in UTC${more}.`);
  return 0;
}

async function createUser(
  db: Db,
  config: Config,
  c: Extract<UsersCommand, { name: 'create' }>,
  out: AdminOutput,
): Promise<number> {
  const store = new AccountStore(db);
  const taken = async () => {
    if (await store.usernameTaken(c.username)) return `The handle @${c.username} is taken.`;
    if (await store.userByEmail(c.email)) return `An account already has the e-mail address ${c.email}.`;
    return null;
  };
  const refusal = await taken();
  if (refusal) {
    out.error(`${refusal} Nothing changed.`);
    return 1;
  }
  const password = c.password ?? randomPassword();
  // As sign-up stores what a browser derived (auth/routes.ts); the password itself is not stored.
  const stored = await shellCredentials(config, password);
  let user: User;
  try {
    user = await store.createUser({
      username: c.username,
      name: c.fullName,
      email: c.email,
      // Sign-up asks for both; an account made here has none, as an imported one (the profile asks).
      phone: c.phone ?? '',
      age: c.age ?? 0,
      passwordHash: stored.authHash,
      e2ee: { kdf: stored.kdf, salt: stored.salt, email: stored.email },
      now: Date.now(),
    });
  } catch (e) {
    if (!(e instanceof TakenError)) throw e;
    out.error(`${(await taken()) ?? `That ${e.field} is taken.`} Nothing changed.`);
    return 1;
  }
  if (c.verifiedEmail) {
    await store.setEmailVerified(user.id, user.email);
    await new AdminStore(db.kysely).recordShell('shell.verifyEmail', user, Date.now());
  }
  const verified = c.verifiedEmail ? 'verified' : 'not verified: the user can have the link sent after signing in';
  out.log(`Created @${user.username} (${user.name}), e-mail ${user.email} (${verified}).`);
  out.log('It has no keys yet: the browser makes them at the first sign-in with this password.');
  if (user.email.toLowerCase() === config.adminEmail) {
    out.log(
      c.verifiedEmail
        ? 'This account is the administrator (ADMIN_EMAIL).'
        : 'This address is ADMIN_EMAIL: the account becomes the administrator once it is verified (verify-email).',
    );
  }
  if (c.password === null) out.log(`Password: ${password}`);
  return 0;
}

/** `users …`: its exit code (0 done, 1 refused, 2 usage). */
export async function runUsersCommand(args: string[], env: NodeJS.ProcessEnv, out: AdminOutput): Promise<number> {
  const command = parseUsers(args);
  if (typeof command === 'string') {
    out.error(`${command}\n\n${USERS_USAGE}`);
    return 2;
  }
  return withDeployment(env, out, (db, config) => {
    if (command.name === 'list') return listUsers(db, command, out);
    if (command.name === 'create') return createUser(db, config, command, out);
    return act(db, config, command, out);
  });
}

/**
 * `users block | unblock | revoke-sessions | reset-2fa | delete`: the account is found by @handle or
 * e-mail and shown, then changed through the store calls /admin's Block (AdminStore.setFlags,
 * by the shell: actor null, audited) and account deletion (AccountStore.deleteUser, then the
 * attachments' blobs) use. With REDIS_URL the running server closes the account's sockets at
 * once (live.ts); without it, at its next session check.
 */
import { CLOSE } from '@app/protocol';
import { Attachments } from '../attachments/attachments.ts';
import { openBlobStore } from '../attachments/open-blob-store.ts';
import type { Config } from '../config.ts';
import { AccountStore } from '../storage/accounts/account-store.ts';
import { AdminStore } from '../storage/accounts/admin-store.ts';
import type { User } from '../storage/accounts/users.ts';
import { AttachmentStore } from '../storage/attachments/attachment-store.ts';
import type { Db } from '../storage/db.ts';
import { confirmed } from './confirm.ts';
import { tellServers } from './live.ts';
import type { AdminOutput } from './output.ts';

export type Who = { email: string } | { username: string };
export type Action = 'block' | 'unblock' | 'revoke-sessions' | 'reset-2fa' | 'delete';

/** Without Redis: what a running server does about the account's ended sessions. */
export const SESSIONS_WITHOUT_REDIS =
  "a running server closes the account's open sockets at its next session check (every 30 seconds); anything they send is refused already.";

/** Text from the database as one terminal line's part: no control characters (escapes), at most `max` long. */
export function cell(text: string, max = 32): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: they are what is replaced
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A time as the commands show it: minutes, UTC. */
export const when = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
export const counted = (n: number, one: string) => `${n.toLocaleString('en-US')} ${one}${n === 1 ? '' : 's'}`;

interface Target {
  db: Db;
  config: Config;
  out: AdminOutput;
  user: User;
  yes: boolean;
}

const handleOf = (u: User) => `@${u.username}`;

async function block(t: Target): Promise<number> {
  const { user, out } = t;
  if (user.blocked) {
    out.log(`${handleOf(user)} is blocked already.`);
    return 0;
  }
  if (user.email.toLowerCase() === t.config.adminEmail) {
    out.log(
      `${handleOf(user)} holds ADMIN_EMAIL, the administrator's address: /admin refuses to block it, the shell does not. Blocked, it cannot sign in, to /admin either, until users unblock.`,
    );
  }
  out.log('Blocking ends every session of the account and refuses its sign-ins until it is unblocked.');
  if (!(await confirmed(`Block ${handleOf(user)}? [y/N] `, t.yes, out))) return 1;
  // As /admin's Block (admin-routes.ts), by the shell (actor null): audited, sessions ended in its transaction.
  const r = await new AdminStore(t.db.kysely).setFlags(null, null, user.id, { blocked: true }, Date.now());
  if (!r) return gone(t);
  out.log(`Blocked ${handleOf(user)}; its sessions ended.`);
  await tellServers(
    t.config,
    out,
    { told: 'Its open sockets were closed (its tabs show the blocked page)', otherwise: SESSIONS_WITHOUT_REDIS },
    (hub) => hub.publishControl({ kind: 'closeUser', userId: user.id, code: CLOSE.blocked }),
  );
  return 0;
}

async function unblock(t: Target): Promise<number> {
  const { user, out } = t;
  if (!user.blocked) {
    out.log(`${handleOf(user)} is not blocked.`);
    return 0;
  }
  const r = await new AdminStore(t.db.kysely).setFlags(null, null, user.id, { blocked: false }, Date.now());
  if (!r) return gone(t);
  out.log(`Unblocked ${handleOf(user)}: it can sign in again.`);
  return 0;
}

async function revokeSessions(t: Target): Promise<number> {
  const { user, out } = t;
  if (!(await confirmed(`Sign ${handleOf(user)} out everywhere? [y/N] `, t.yes, out))) return 1;
  const ended = await new AccountStore(t.db).deleteUserSessions(user.id);
  out.log(`Ended ${counted(ended, 'session')} of ${handleOf(user)}: it signs in again with its password.`);
  await tellServers(
    t.config,
    out,
    { told: 'Its open sockets were closed (its tabs show the sign-in page)', otherwise: SESSIONS_WITHOUT_REDIS },
    (hub) => hub.publishControl({ kind: 'closeUser', userId: user.id, code: CLOSE.sessionEnded }),
  );
  return 0;
}

/**
 * Two-step verification off for someone who lost every way and every recovery code: their
 * app, passkeys, codes and sign-ins in progress go, and their sessions end (whoever holds one
 * may be who took the device). Confirm who is asking first, outside Parley: this is what an
 * attacker with the password would ask for. With REQUIRE_2FA they set up an app again at
 * their next sign-in.
 */
async function resetTwoFactor(t: Target): Promise<number> {
  const { user, out } = t;
  out.log(
    'This turns two-step verification off for the account: its authenticator app, passkeys and recovery codes go. Do it only for its owner, whom you have recognised another way: with the password alone, anyone could sign in afterwards.',
  );
  if (!(await confirmed(`Reset two-step verification of ${handleOf(user)}? [y/N] `, t.yes, out))) return 1;
  await t.db.kysely.transaction().execute(async (tx) => {
    for (const table of ['user_totp', 'user_passkeys', 'user_recovery_codes', 'pending_sign_ins'] as const) {
      await tx.deleteFrom(table).where('user_id', '=', user.id).execute();
    }
  });
  const ended = await new AccountStore(t.db).deleteUserSessions(user.id);
  out.log(`Two-step verification of ${handleOf(user)} is off; ${counted(ended, 'session')} ended.`);
  await tellServers(
    t.config,
    out,
    { told: 'Its open sockets were closed (its tabs show the sign-in page)', otherwise: SESSIONS_WITHOUT_REDIS },
    (hub) => hub.publishControl({ kind: 'closeUser', userId: user.id, code: CLOSE.sessionEnded }),
  );
  return 0;
}

async function deleteAccount(t: Target): Promise<number> {
  const { user, out, config } = t;
  out.log(
    'Deleting removes the account for good: its messages, chats, contacts, keys, settings and the attachments it uploaded. The people it wrote to keep their own messages, shown with a deleted account. This cannot be undone.',
  );
  if (user.email.toLowerCase() === config.adminEmail) {
    out.log(
      `${handleOf(user)} holds ADMIN_EMAIL: whoever signs up with that address next and verifies it becomes the administrator.`,
    );
  }
  if (!(await confirmed(`Delete ${handleOf(user)} for good? [y/N] `, t.yes, out))) return 1;
  // As DELETE /api/account (auth/account-routes.ts): the rows, then the blobs they uploaded.
  await new AccountStore(t.db).deleteUser(user.id);
  const blobs = await openBlobStore(config);
  const attachments = new Attachments(new AttachmentStore(t.db.kysely), blobs, {
    maxBytes: config.attachmentMaxBytes,
    quotaBytes: config.attachmentQuotaBytes,
  });
  await attachments.removeOwnedBy(user.id);
  out.log(`Deleted ${handleOf(user)} (${user.email}).`);
  // As the account's own deletion closes them.
  await tellServers(t.config, out, { told: 'Its open sockets were closed', otherwise: SESSIONS_WITHOUT_REDIS }, (hub) =>
    hub.publishControl({ kind: 'closeUser', userId: user.id, code: CLOSE.sessionEnded }),
  );
  return 0;
}

function gone(t: Target): number {
  t.out.error(`${handleOf(t.user)} was deleted meanwhile. Nothing changed.`);
  return 1;
}

const ACTIONS: Record<Action, (t: Target) => Promise<number>> = {
  block,
  unblock,
  'revoke-sessions': revokeSessions,
  'reset-2fa': resetTwoFactor,
  delete: deleteAccount,
};

export async function act(
  db: Db,
  config: Config,
  c: { name: Action; who: Who; yes: boolean },
  out: AdminOutput,
): Promise<number> {
  const store = new AccountStore(db);
  const user = 'email' in c.who ? await store.userByEmail(c.who.email) : await store.userByUsername(c.who.username);
  if (!user) {
    out.error(
      'email' in c.who
        ? `No account has the e-mail address ${c.who.email}.`
        : `No account has the handle @${c.who.username}.`,
    );
    return 1;
  }
  const sessions = (await store.userSessions(user.id, Date.now())).length;
  const state = `${user.emailVerified ? '' : ' (not verified)'}, created ${when(user.createdAt)} UTC${user.blocked ? ', blocked' : ''}`;
  out.log(
    `Account ${handleOf(user)} (${cell(user.name)}), e-mail ${cell(user.email, 254)}${state}; ${counted(sessions, 'session')}.`,
  );
  return ACTIONS[c.name]({ db, config, out, user, yes: c.yes });
}

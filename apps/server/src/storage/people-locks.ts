/**
 * Who a change is made for: their rows locked until it commits, and the change refused
 * (RevokedError) when the account is gone or blocked or the session it came from ended.
 */
import { MSG } from '@app/protocol';
import { ChatError } from './messages/chat-rows.ts';
import { run, stmt, type Tx } from './program.ts';

const REVOKED_MSG = {
  deleted: 'This account no longer exists',
  blocked: 'This account has been blocked by the administrator',
  sessionEnded: MSG.sessionExpired,
} as const;

/**
 * Refused because the user a change was made for is gone or blocked, or its session has
 * ended: the socket it came from is closed as well (realtime/connection.ts).
 */
export class RevokedError extends ChatError {
  readonly why: keyof typeof REVOKED_MSG;
  constructor(why: keyof typeof REVOKED_MSG) {
    super('forbidden', REVOKED_MSG[why]);
    this.why = why;
  }
}

/**
 * Throws RevokedError unless the acting user's row (as lockPeople or SEND_CONTEXT read it)
 * is there and not blocked, and, when the change comes from a session, that session is
 * live (`session_expires`, read in the same statement).
 */
export function assertActive<T extends { blocked: number; session_expires?: number | string | null }>(
  user: T | undefined,
  session: string | null = null,
  now = Date.now(),
): asserts user is T {
  if (!user) throw new RevokedError('deleted');
  if (user.blocked === 1) throw new RevokedError('blocked');
  if (session !== null && (user.session_expires == null || Number(user.session_expires) <= now)) {
    throw new RevokedError('sessionEnded');
  }
}

/**
 * The people a change is made for (one or two), locked until the change commits so that
 * an account deletion waits for it, or it for the deletion (PostgreSQL: FOR KEY SHARE,
 * which does not block other changes to those users; SQLite's single writer needs no
 * lock). A change that takes this first can neither deadlock with a deletion nor leave
 * rows of a user it deleted. Missing users are not returned.
 */
const LOCK_PEOPLE = stmt(
  'select id, blocked, (select expires_at from sessions where token_hash = ?) as session_expires from users where id in (?, ?)',
  ' order by id for key share',
);

const LOCK_USER = {
  /** Rows that hang on the user change (it stays: FOR KEY SHARE, as lockPeople). */
  keep: stmt('select id from users where id = ?', ' for key share'),
  /** The user's own row changes (admin flags). */
  change: stmt('select id from users where id = ?', ' for no key update'),
  delete: stmt('select id from users where id = ?', ' for update'),
};

/**
 * Any other transaction that touches a user's rows locks the user's row first as well,
 * so that it waits for a deletion, or the deletion for it, and neither deadlocks.
 * Returns whether the user exists.
 */
export async function lockUser(tx: Tx, userId: string, purpose: keyof typeof LOCK_USER): Promise<boolean> {
  return (await run(tx, LOCK_USER[purpose], [userId])).length > 0;
}

export interface LockedPerson {
  id: string;
  blocked: number;
  /** When the session given to lockPeople ends (null: no such session, or none given). */
  session_expires: number | string | null;
}

/**
 * Locks `a` and `b` (see above) and checks that `actor` (one of them) is there, not
 * blocked, and, when the change comes from a session, that it is live.
 */
export async function lockPeople(
  tx: Tx,
  actor: string,
  other: string = actor,
  session: string | null = null,
  now = Date.now(),
): Promise<LockedPerson[]> {
  const people = await run<LockedPerson>(tx, LOCK_PEOPLE, [session, actor, other]);
  assertActive(
    people.find((p) => p.id === actor),
    session,
    now,
  );
  return people;
}

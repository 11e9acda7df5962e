/**
 * What a `chatFlags` request changes in the user's summary of a chat (protocol
 * chat-flags.ts): archived, locked, pinned, muted, marked unread. Locking needs a PIN; a
 * chat archived or locked is unpinned, and cannot be pinned; at most PINNED_CHATS_MAX are
 * pinned, counted once the transaction holds the user's row, so that two pins at once
 * count one after the other.
 */
import { CHAT_FLAGS_MSG, type ChatSummary, type Mute, mutedUntilOf, PINNED_CHATS_MAX, SOCIAL_MSG } from '@app/protocol';
import type { Updateable } from 'kysely';
import { ChatError } from '../messages/chat-rows.ts';
import { lockUser } from '../people-locks.ts';
import type { Tx } from '../program.ts';
import type { UserChatsTable } from '../schema.ts';

/** What `chatFlags` may change (the request's fields, protocol ws.ts chatFlagsSchema). */
export interface ChatFlags {
  archived?: boolean | undefined;
  locked?: boolean | undefined;
  pinned?: boolean | undefined;
  mute?: Mute | undefined;
  markedUnread?: true | undefined;
}

type Changes = Updateable<UserChatsTable>;

/** The columns `flags` change in `current` (the user's summary); throws a refusal. */
export async function flagChanges(
  tx: Tx,
  userId: string,
  current: ChatSummary,
  flags: ChatFlags,
  now: number,
): Promise<Changes> {
  if (flags.locked === true && !current.locked) {
    const pin = await tx.selectFrom('users').select('pin_hash').where('id', '=', userId).executeTakeFirst();
    if (!pin?.pin_hash) throw new ChatError('pin_required', SOCIAL_MSG.pinRequired);
  }
  const set: Changes = {};
  if (flags.archived !== undefined) set.archived = flags.archived ? 1 : 0;
  if (flags.locked !== undefined) set.locked = flags.locked ? 1 : 0;
  const hidden = (flags.archived ?? current.archived) || (flags.locked ?? current.locked);
  const pinnedAt = await pinChange(tx, userId, current, flags.pinned, hidden, now);
  if (pinnedAt !== undefined) set.pinned_at = pinnedAt;
  if (flags.mute !== undefined) set.muted_until = mutedUntilOf(flags.mute, now);
  if (flags.markedUnread) set.marked_unread = 1;
  return set;
}

/** The chat's new `pinned_at` (undefined: unchanged). */
async function pinChange(
  tx: Tx,
  userId: string,
  current: ChatSummary,
  pinned: boolean | undefined,
  hidden: boolean,
  now: number,
): Promise<number | null | undefined> {
  if (hidden) {
    if (pinned === true) throw new ChatError('forbidden', CHAT_FLAGS_MSG.pinHidden);
    return null;
  }
  if (pinned === false) return null;
  if (pinned !== true || current.pinnedAt !== null) return undefined;
  // PostgreSQL: the user's row, which sends' FOR KEY SHARE does not wait for; SQLite has one writer.
  await lockUser(tx, userId, 'change');
  const count = await tx
    .selectFrom('user_chats')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('pinned_at', 'is not', null)
    .executeTakeFirst();
  if (Number(count?.n ?? 0) >= PINNED_CHATS_MAX) throw new ChatError('forbidden', CHAT_FLAGS_MSG.pinLimit);
  return now;
}

/** Whether two summaries of a chat carry the same marks (then nothing is logged). */
export function sameFlags(a: ChatSummary, b: ChatSummary): boolean {
  return (
    a.archived === b.archived &&
    a.locked === b.locked &&
    a.pinnedAt === b.pinnedAt &&
    a.mutedUntil === b.mutedUntil &&
    a.markedUnread === b.markedUnread
  );
}

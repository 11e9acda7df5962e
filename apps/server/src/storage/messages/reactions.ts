/**
 * Reactions (protocol reactions.ts): one sealed emoji per person per message, stored,
 * replaced or taken back in one transaction with the update it logs to both participants.
 * Only a participant reacts, to a message of that chat that is not deleted, under a key
 * the chat has (any epoch: both people hold every one). A reaction to the peer's message
 * is activity for them: their chat is marked unread (every browser of theirs shows it).
 */
import { peerOf, REACTION_MSG, type Reaction, reactionEpoch, type Update } from '@app/protocol';
import type { Kysely } from 'kysely';
import { lockPeople } from '../people-locks.ts';
import type { Database } from '../schema.ts';
import { appendLog, ChatError, type LoggedUpdate, summaryOf } from './chat-rows.ts';

export async function react(
  db: Kysely<Database>,
  userId: string,
  chatId: string,
  msgId: string,
  ct: string | null,
  now: number,
  session: string | null,
): Promise<{ reaction: Reaction; updates: LoggedUpdate[] }> {
  return db.transaction().execute(async (tx) => {
    await lockPeople(tx, userId, peerOf(chatId, userId), session, now);
    const m = await tx
      .selectFrom('messages')
      .select(['sender_id', 'recipient_id', 'deleted'])
      .where('chat_id', '=', chatId)
      .where('id', '=', msgId)
      .executeTakeFirst();
    if (!m || (m.sender_id !== userId && m.recipient_id !== userId)) {
      throw new ChatError('not_found', REACTION_MSG.notFound);
    }
    if (m.deleted === 1) throw new ChatError('conflict', REACTION_MSG.deleted);
    const where = { chat_id: chatId, msg_id: msgId, user_id: userId };
    if (ct === null) {
      const gone = await tx
        .deleteFrom('reactions')
        .where('chat_id', '=', chatId)
        .where('msg_id', '=', msgId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      // Nothing to take back: nothing changed, nothing logged.
      if (Number(gone.numDeletedRows) === 0) return { reaction: { chatId, msgId, userId, ct, at: now }, updates: [] };
    } else {
      const epoch = reactionEpoch(ct);
      const key =
        epoch === null
          ? undefined
          : await tx
              .selectFrom('chat_keys')
              .select('epoch')
              .where('chat_id', '=', chatId)
              .where('epoch', '=', epoch)
              .executeTakeFirst();
      if (!key) throw new ChatError('rekey_required', "This chat's key is out of date: send a message first");
      await tx
        .insertInto('reactions')
        .values({ ...where, ct, at: now })
        .onConflict((oc) => oc.columns(['chat_id', 'msg_id', 'user_id']).doUpdateSet({ ct, at: now }))
        .execute();
    }
    const reaction: Reaction = { chatId, msgId, userId, ct, at: now };
    const update: Update = { kind: 'reaction', reaction };
    const peerId = peerOf(chatId, userId);
    // A new reaction to the peer's message is activity for them: their chat marked unread,
    // and its summary with the update (the push service names who reacted from it).
    const activity = ct !== null && m.sender_id === peerId;
    if (activity) {
      await tx
        .updateTable('user_chats')
        .set({ marked_unread: 1 })
        .where('user_id', '=', peerId)
        .where('chat_id', '=', chatId)
        .execute();
    }
    const chat = activity ? await summaryOf(tx, peerId, chatId) : null;
    const entries: { userId: string; update: Update }[] = [
      { userId, update },
      { userId: peerId, update: chat ? { ...update, chat } : update },
    ];
    return { reaction, updates: await appendLog(tx, entries, now) };
  });
}

/** The reactions to these messages of a chat (for a history page). */
export async function reactionsOf(
  db: Kysely<Database>,
  chatId: string,
  msgIds: readonly string[],
): Promise<Reaction[]> {
  if (msgIds.length === 0) return [];
  const rows = await db
    .selectFrom('reactions')
    .selectAll()
    .where('chat_id', '=', chatId)
    .where('msg_id', 'in', msgIds)
    .execute();
  return rows.map((r) => ({ chatId: r.chat_id, msgId: r.msg_id, userId: r.user_id, ct: r.ct, at: Number(r.at) }));
}

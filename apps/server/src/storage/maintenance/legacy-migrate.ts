/**
 * Messages from before end-to-end encryption, re-encrypted by their sender (design
 * docs/e2ee.md): the browser seals each of its own legacy messages as revision 0 under
 * the chat's current key, and the server swaps the plaintext for the ciphertext, once.
 * Only the sender's own rows, only rows still in the clear, not deleted ones; it cannot
 * check that the text is the same (no more power than an edit). The summaries follow when
 * the newest message is one of them. No message update is logged: every client already
 * shows the same text, and opens the ciphertext the next time it loads the page.
 *
 * A chat with no key yet (everything in it from before), or one older than either person's
 * keys, takes the next key with the batch, checked as a send's (acceptSealedSend): the
 * sender's browser re-encrypts right after sign-in instead of waiting for a new message.
 * `ownLegacy` pages what is left to do, across the chats.
 */
import { type ChatKeyEnvelopeWire, type ChatMessage, peerOf, sealedHeader } from '@app/protocol';
import { type Kysely, sql } from 'kysely';
import { acceptSealedEdit, acceptSealedSend, currentChatKey, keyContext } from '../messages/chat-keys.ts';
import { appendLog, ChatError, type LoggedUpdate, toMessage } from '../messages/chat-rows.ts';
import { refreshSummaries } from '../messages/summaries.ts';
import { lockPeople } from '../people-locks.ts';
import { runProgram, type Tx } from '../program.ts';
import type { Database } from '../schema.ts';

/** The key a batch is sealed under: the chat's current one, or the next one it brings. */
async function acceptBatchKey(
  tx: Tx,
  userId: string,
  chatId: string,
  ct: string,
  chatKey: ChatKeyEnvelopeWire | undefined,
  now: number,
): Promise<void> {
  if (!chatKey) return acceptSealedEdit(tx, chatId, ct, 0);
  const ids = chatId.split('_');
  const rows = await tx.selectFrom('user_keys').select(['user_id', 'uk_epoch']).where('user_id', 'in', ids).execute();
  const ukEpochs = ids.map((id) => {
    const r = rows.find((x) => x.user_id === id);
    return { id, ukEpoch: r ? Number(r.uk_epoch) : null };
  });
  const current = await runProgram(tx, currentChatKey(chatId));
  const made = await runProgram(tx, acceptSealedSend(chatId, userId, ct, chatKey, keyContext(current, ukEpochs), now));
  // A summary that copies the chat's key (for sends) follows it.
  await tx.updateTable('user_chats').set({ chat_key: made }).where('chat_id', '=', chatId).execute();
}

/**
 * A page of `userId`'s own messages still in the clear (not deleted), by chat then id, after
 * `after`; the chats they locked are left out (their messages wait for the PIN: the chat's
 * own pages offer them then). The first page's `total` counts them all. Served by the partial index of
 * migration 016, which holds only rows in the clear.
 */
export async function ownLegacy(
  db: Kysely<Database>,
  userId: string,
  after: { chatId: string; msgId: string } | undefined,
  limit: number,
): Promise<{ messages: ChatMessage[]; total?: number }> {
  const base = db
    .selectFrom('messages as m')
    .leftJoin('user_chats as uc', (j) => j.onRef('uc.chat_id', '=', 'm.chat_id').on('uc.user_id', '=', userId))
    .where('m.sender_id', '=', userId)
    .where('m.sealed', '=', 0)
    .where('m.deleted', '=', 0)
    .where(sql<boolean>`coalesce(uc.locked, 0) = 0`);
  const page = await base
    .selectAll('m')
    .$if(!!after, (q) =>
      q.where((eb) =>
        eb.or([
          eb('m.chat_id', '>', after?.chatId ?? ''),
          eb.and([eb('m.chat_id', '=', after?.chatId ?? ''), eb('m.id', '>', after?.msgId ?? '')]),
        ]),
      ),
    )
    .orderBy('m.chat_id')
    .orderBy('m.id')
    .limit(limit)
    .execute();
  // Counted once, on the first page (the browser's progress): not again for every page.
  if (after) return { messages: page.map(toMessage) };
  const count = await base.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow();
  return { messages: page.map(toMessage), total: Number(count.n) };
}

export async function migrateLegacy(
  db: Kysely<Database>,
  userId: string,
  chatId: string,
  items: readonly { msgId: string; ct: string }[],
  now: number,
  session: string | null,
  chatKey?: ChatKeyEnvelopeWire,
): Promise<{ migrated: string[]; updates: LoggedUpdate[] }> {
  const first = items[0];
  if (!first) return { migrated: [], updates: [] };
  // One key for the whole batch: every item revision 0 under the same epoch (the epoch checked once, below).
  const epoch = sealedHeader(first.ct)?.epoch;
  if (items.some((i) => sealedHeader(i.ct)?.epoch !== epoch || sealedHeader(i.ct)?.rev !== 0)) {
    throw new ChatError('conflict', 'Every message of a batch is revision 0 under one key');
  }
  return db.transaction().execute(async (tx) => {
    await lockPeople(tx, userId, peerOf(chatId, userId), session, now);
    await acceptBatchKey(tx, userId, chatId, first.ct, chatKey, now);
    const done = new Map<string, string>();
    for (const item of items) {
      const r = await tx
        .updateTable('messages')
        .set({ text: item.ct, sealed: 1, rev: 0 })
        .where('chat_id', '=', chatId)
        .where('id', '=', item.msgId)
        .where('sender_id', '=', userId)
        .where('sealed', '=', 0)
        .where('deleted', '=', 0)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 1) done.set(item.msgId, item.ct);
    }
    const head = await tx
      .selectFrom('user_chats')
      .select('last_id')
      .where('chat_id', '=', chatId)
      .where('last_sealed', '=', 0)
      .where('last_deleted', '=', 0)
      .executeTakeFirst();
    // The summaries' copy of the newest message's text in the clear goes: they read it from its row.
    const entries =
      head?.last_id && done.has(head.last_id)
        ? await refreshSummaries(tx, chatId, chatId.split('_'), { last_rev: 0, last_sealed: 1, last_deleted: 0 })
        : [];
    return { migrated: [...done.keys()], updates: await appendLog(tx, entries, now) };
  });
}

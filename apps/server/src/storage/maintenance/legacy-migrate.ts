/**
 * Messages from before end-to-end encryption, re-encrypted by their sender (design
 * docs/e2ee.md): the browser seals each of its own legacy messages as revision 0 under
 * the chat's current key, and the server swaps the plaintext for the ciphertext, once.
 * Only the sender's own rows, only rows still in the clear, not deleted ones; it cannot
 * check that the text is the same (no more power than an edit). The summaries follow when
 * the newest message is one of them. No message update is logged: every client already
 * shows the same text, and opens the ciphertext the next time it loads the page.
 */
import { peerOf, sealedHeader } from '@app/protocol';
import type { Kysely } from 'kysely';
import { acceptSealedEdit } from '../messages/chat-keys.ts';
import { appendLog, ChatError, type LoggedUpdate } from '../messages/chat-rows.ts';
import { refreshSummaries } from '../messages/summaries.ts';
import { lockPeople } from '../people-locks.ts';
import type { Database } from '../schema.ts';

export async function migrateLegacy(
  db: Kysely<Database>,
  userId: string,
  chatId: string,
  items: readonly { msgId: string; ct: string }[],
  now: number,
  session: string | null,
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
    await acceptSealedEdit(tx, chatId, first.ct, 0);
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
    const ct = head?.last_id ? done.get(head.last_id) : undefined;
    const entries = ct
      ? await refreshSummaries(tx, chatId, chatId.split('_'), {
          last_message: ct,
          last_rev: 0,
          last_sealed: 1,
          last_deleted: 0,
        })
      : [];
    return { migrated: [...done.keys()], updates: await appendLog(tx, entries, now) };
  });
}

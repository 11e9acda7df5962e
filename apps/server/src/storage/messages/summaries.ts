/** Chat summaries (user_chats) when a change reaches a chat's newest message. */
import type { Update } from '@app/protocol';
import type { Transaction } from 'kysely';
import type { Database } from '../schema.ts';
import { summaryOf } from './chat-rows.ts';

/**
 * Both summaries of a chat after its newest message changed (an edit, a deletion), logged.
 * Summaries refer to the message (chat-rows.ts, LastJoined), so a summary written since
 * 1.1 needs no write; one from before still holds a copy of the text, which goes (a
 * deletion must leave no ciphertext of the message behind), with its state kept alongside
 * as a summary without a row shows it. In user id order, as a send locks them.
 */
export async function refreshSummaries(
  tx: Transaction<Database>,
  chatId: string,
  people: string[],
  last: { last_rev: number; last_sealed: 0 | 1; last_deleted: 0 | 1 },
): Promise<{ userId: string; update: Update }[]> {
  for (const uid of [...people].sort()) {
    await tx
      .updateTable('user_chats')
      .set({ ...last, last_message: null })
      .where('user_id', '=', uid)
      .where('chat_id', '=', chatId)
      .where('last_message', 'is not', null)
      .execute();
  }
  const out: { userId: string; update: Update }[] = [];
  for (const uid of people) {
    const chat = await summaryOf(tx, uid, chatId);
    if (chat) out.push({ userId: uid, update: { kind: 'chat', chat } });
  }
  return out;
}

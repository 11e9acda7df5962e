/** Chat summaries (user_chats) rewritten when a change reaches a chat's newest message. */
import type { Update } from '@app/protocol';
import type { Transaction } from 'kysely';
import type { Database } from '../schema.ts';
import { summaryOf } from './chat-rows.ts';

/** Both summaries of a chat get its newest message anew (in user id order, as a send locks them); their new rows, logged. */
export async function refreshSummaries(
  tx: Transaction<Database>,
  chatId: string,
  people: string[],
  last: { last_message: string; last_rev: number; last_sealed: 0 | 1; last_deleted: 0 | 1 },
): Promise<{ userId: string; update: Update }[]> {
  for (const uid of [...people].sort()) {
    await tx.updateTable('user_chats').set(last).where('user_id', '=', uid).where('chat_id', '=', chatId).execute();
  }
  const out: { userId: string; update: Update }[] = [];
  for (const uid of people) {
    const chat = await summaryOf(tx, uid, chatId);
    if (chat) out.push({ userId: uid, update: { kind: 'chat', chat } });
  }
  return out;
}

/**
 * A deletion removes the ciphertext for real (design e2ee.md 2.6), including the copies
 * the update log still holds for clients that resume: every logged state of the message
 * (its send and each edit) becomes its deleted state, and every logged chat summary
 * headed by it becomes the chat's summary now. The entries keep their seqs, so a resume
 * is still exactly what was missed, in order, once; replaying the deleted state twice
 * changes nothing.
 */
import type { ChatMessage } from '@app/protocol';
import { sql, type Transaction } from 'kysely';
import { payloadOf, summaryOf } from './chat-rows.ts';
import type { Database } from './schema.ts';

/** `text` for LIKE … ESCAPE '!', so an id's '_' matches only itself. */
function literal(text: string): string {
  return text.replace(/[!%_]/g, (c) => `!${c}`);
}

export async function scrubDeletedFromLog(tx: Transaction<Database>, deleted: ChatMessage): Promise<void> {
  const { chatId, id } = deleted;
  const people = [deleted.senderId, deleted.recipientId];
  const ofMessage = `%"chatId":"${literal(chatId)}","id":"${literal(id)}"%`;
  await tx
    .updateTable('user_updates')
    .set({ payload: payloadOf({ kind: 'message', message: deleted }) })
    .where('user_id', 'in', people)
    .where('kind', '=', 'message')
    .where(sql<boolean>`payload LIKE ${ofMessage} ESCAPE '!'`)
    .execute();
  const headedBy = `%"last":{"id":"${literal(id)}"%`;
  for (const userId of people) {
    const chat = await summaryOf(tx, userId, chatId);
    if (!chat) continue;
    await tx
      .updateTable('user_updates')
      .set({ payload: payloadOf({ kind: 'chat', chat }) })
      .where('user_id', '=', userId)
      .where('kind', '=', 'chat')
      .where(sql<boolean>`payload LIKE ${`%"chatId":"${literal(chatId)}"%`} ESCAPE '!'`)
      .where(sql<boolean>`payload LIKE ${headedBy} ESCAPE '!'`)
      .execute();
  }
}

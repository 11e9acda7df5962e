/**
 * A deletion replaces every ciphertext of the message with its sender's tombstone
 * (docs/e2ee.md), including the copies the update log still holds for clients that resume: every logged state of the message
 * (its send, each edit, its receipts) becomes its deleted state, and every logged chat
 * summary headed by it becomes the chat's summary now. The entries keep their seqs, so a
 * resume is still exactly what was missed, in order, once; replaying the deleted state
 * twice changes nothing. Entries are found by a text search and then checked exactly on
 * their parsed payload (SQLite's LIKE ignores case; ids are the clients' own).
 */
import type { ChatMessage, Update } from '@app/protocol';
import { sql, type Transaction } from 'kysely';
import type { Database } from '../schema.ts';
import { payloadOf, summaryOf } from './chat-rows.ts';

/** `text` for LIKE … ESCAPE '!', so an id's '_' matches only itself. */
function literal(text: string): string {
  return text.replace(/[!%_]/g, (c) => `!${c}`);
}

function isOf(update: Update, m: ChatMessage): boolean {
  if (update.kind === 'message') return update.message.chatId === m.chatId && update.message.id === m.id;
  if (update.kind === 'chat') return update.chat.chatId === m.chatId && update.chat.last?.id === m.id;
  return false;
}

export async function scrubDeletedFromLog(tx: Transaction<Database>, deleted: ChatMessage): Promise<void> {
  for (const userId of [deleted.senderId, deleted.recipientId]) {
    const rows = await tx
      .selectFrom('user_updates')
      .select(['seq', 'kind', 'payload'])
      .where('user_id', '=', userId)
      .where('kind', 'in', ['message', 'chat'])
      .where(sql<boolean>`payload LIKE ${`%${literal(deleted.id)}%`} ESCAPE '!'`)
      .execute();
    const stale = rows
      .map((r) => ({ seq: r.seq, update: JSON.parse(r.payload) as Update }))
      .filter((r) => isOf(r.update, deleted));
    if (stale.length === 0) continue;
    const chat = stale.some((r) => r.update.kind === 'chat') ? await summaryOf(tx, userId, deleted.chatId) : null;
    for (const r of stale) {
      // A message's entry keeps the summary it carries (which holds no text).
      const now: Update | null =
        r.update.kind === 'message' ? { ...r.update, message: deleted } : chat ? { kind: 'chat', chat } : null;
      if (!now) continue;
      await tx
        .updateTable('user_updates')
        .set({ payload: payloadOf(now) })
        .where('user_id', '=', userId)
        .where('seq', '=', r.seq)
        .execute();
    }
  }
}

/**
 * A deletion replaces every ciphertext of the message with its sender's tombstone
 * (docs/e2ee.md), including the copies the update log still holds for clients that resume.
 * The log has held messages by reference since 1.1 (log-payload.ts): only entries written
 * before hold a text, and only those are rewritten here. Every such logged state of the message
 * (its send, each edit, its receipts) becomes its deleted state, and every logged chat
 * summary headed by it becomes the chat's summary now. The entries keep their seqs, so a
 * resume is still exactly what was missed, in order, once; replaying the deleted state
 * twice changes nothing. Entries are found by a text search and then checked exactly on
 * their parsed payload (SQLite's LIKE ignores case; ids are the clients' own).
 */
import type { ChatMessage, Update } from '@app/protocol';
import { sql, type Transaction } from 'kysely';
import type { Database } from '../schema.ts';
import { summaryOf } from './chat-rows.ts';
import { logPayloadOf } from './log-payload.ts';

/** `text` for LIKE … ESCAPE '!', so an id's '_' matches only itself. */
function literal(text: string): string {
  return text.replace(/[!%_]/g, (c) => `!${c}`);
}

/** The update holds a text of `m` (an entry written before the log held messages by reference). */
function holdsTextOf(update: Update, m: ChatMessage): boolean {
  if (update.kind === 'message') {
    const u = update.message;
    return u.chatId === m.chatId && u.id === m.id && (u.ct !== null || u.legacyText !== null);
  }
  if (update.kind === 'chat') {
    const last = update.chat.last;
    return update.chat.chatId === m.chatId && last?.id === m.id && (last.ct !== null || last.legacyText !== null);
  }
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
      .filter((r) => holdsTextOf(r.update, deleted));
    if (stale.length === 0) continue;
    const chat = stale.some((r) => r.update.kind === 'chat') ? await summaryOf(tx, userId, deleted.chatId) : null;
    for (const r of stale) {
      // A message's entry keeps the summary it carries (which holds no text).
      const now: Update | null =
        r.update.kind === 'message' ? { ...r.update, message: deleted } : chat ? { kind: 'chat', chat } : null;
      if (!now) continue;
      await tx
        .updateTable('user_updates')
        .set({ payload: logPayloadOf(now) })
        .where('user_id', '=', userId)
        .where('seq', '=', r.seq)
        .execute();
    }
  }
}

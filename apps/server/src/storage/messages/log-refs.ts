/**
 * The update log holds messages by reference (docs/scaling.md, "Fewer writes per send"). A
 * message's ciphertext is stored once, in its `messages` row: an entry that carries a
 * message (its send, an edit, a receipt) or a chat summary headed by one is logged without
 * the text, and a socket that reads the log back (a resume, a gap) gets the text from the
 * row. Live frames never come from the log: they carry the update from memory.
 *
 * What the row gives is the message as it is now, not as it was when the entry was
 * written, just as a deletion has always rewritten every logged state of a message to its
 * deleted one (log-scrub.ts): a client that resumes sees a message's later state at an
 * earlier seq, and the later entries change nothing more. Revisions and statuses only move
 * forward, so that is never older than what the client holds. A row that is gone (its
 * sender's account was deleted) is logged as deleted, with no text.
 */
import type { ChatMessage, ChatSummary, Update } from '@app/protocol';
import type { Selectable } from 'kysely';
import type { Tx } from '../program.ts';
import type { MessagesTable } from '../schema.ts';
import { toMessage, wireText } from './chat-rows.ts';
import { type Key, NO_TEXT, refOf } from './log-payload.ts';

const keyOf = (k: Key) => `${k.chatId}\u0000${k.id}`;
/** Ids a statement asks for at once. */
const CHUNK = 500;

async function rowsOf(tx: Tx, keys: Key[]): Promise<Map<string, Selectable<MessagesTable>>> {
  const out = new Map<string, Selectable<MessagesTable>>();
  const byChat = new Map<string, Set<string>>();
  for (const k of keys) {
    const ids = byChat.get(k.chatId) ?? new Set<string>();
    ids.add(k.id);
    byChat.set(k.chatId, ids);
  }
  for (const [chatId, ids] of byChat) {
    const all = [...ids];
    for (let i = 0; i < all.length; i += CHUNK) {
      const rows = await tx
        .selectFrom('messages')
        .selectAll()
        .where('chat_id', '=', chatId)
        .where('id', 'in', all.slice(i, i + CHUNK))
        .execute();
      for (const r of rows) out.set(keyOf({ chatId: r.chat_id, id: r.id }), r);
    }
  }
  return out;
}

function lastFrom(chat: ChatSummary, row: Selectable<MessagesTable> | undefined): ChatSummary {
  if (!chat.last) return chat;
  if (!row) return { ...chat, last: { ...chat.last, ...NO_TEXT, deleted: true } };
  const deleted = row.deleted === 1;
  return { ...chat, last: { ...chat.last, rev: row.rev, deleted, ...wireText(row.text, row.sealed, deleted) } };
}

function messageFrom(stored: ChatMessage, row: Selectable<MessagesTable> | undefined): ChatMessage {
  return row ? toMessage(row) : { ...stored, ...NO_TEXT, deleted: true };
}

/** Updates read back from the log, with their messages' texts (and states) from the rows. */
export async function withTexts(tx: Tx, updates: Update[]): Promise<Update[]> {
  const keys = updates.map(refOf).filter((k): k is Key => k !== null);
  if (keys.length === 0) return updates;
  const rows = await rowsOf(tx, keys);
  return updates.map((u) => {
    const ref = refOf(u);
    if (!ref) return u;
    const row = rows.get(keyOf(ref));
    switch (u.kind) {
      case 'message':
        return { ...u, message: messageFrom(u.message, row) };
      case 'chat':
        return { ...u, chat: lastFrom(u.chat, row) };
      case 'reaction':
        return u.chat ? { ...u, chat: lastFrom(u.chat, row) } : u;
      default:
        return u;
    }
  });
}

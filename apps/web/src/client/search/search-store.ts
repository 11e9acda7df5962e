/**
 * The search index at rest (docs/search.md): IndexedDB database 'parley-search', one record
 * per user and chat, its messages as JSON sealed under this browser's own key like the
 * outbox and the drafts (no plaintext at rest), with whether the chat's history has been
 * read to its start. Where nothing is kept at rest, nothing is stored (the index lives in
 * the tab's memory). Signing out deletes the database (wipeSearchIndex).
 */
import { z } from 'zod';
import { OneStoreDb } from '@/lib/idb';
import type { LocalSealing } from '../keys/local-keys';
import type { IndexedMessage } from './search-index';

const recordSchema = z.object({
  /** `${userId}:${chatId}`. */
  key: z.string(),
  userId: z.string(),
  chatId: z.string(),
  /** The chat's indexed messages, JSON, sealed (keys/local-keys.ts sealLocal). */
  sealed: z.string(),
  /** The background indexer read the chat's history to its first message. */
  complete: z.boolean(),
});
type SearchRecord = z.infer<typeof recordSchema>;

const messagesSchema = z.array(
  z.object({
    chatId: z.string(),
    msgId: z.string(),
    senderId: z.string(),
    timestamp: z.number(),
    rev: z.number().int().nonnegative(),
    text: z.string(),
  }),
);

/** Where the index's records go (IndexedDB in the browser; memory in tests). */
export interface SearchStore {
  list(userId: string): Promise<readonly unknown[]>;
  put(record: SearchRecord): Promise<void>;
}

const db = new OneStoreDb('parley-search', 'chats', 'key');
export const indexedDbSearch: SearchStore = { list: (u) => db.listFor(u), put: (r) => db.put(r) };

/** Deletes this browser's search index (sign-out: the key that sealed it goes too). */
export function wipeSearchIndex(): Promise<void> {
  return db.wipe();
}

/** A chat as stored: what was indexed of it, and whether that is all of it. */
export interface StoredChat {
  chatId: string;
  messages: IndexedMessage[];
  complete: boolean;
}

/** Seals and stores a chat's part of the index (nothing where nothing is kept at rest). */
export async function storeChat(store: SearchStore, local: LocalSealing, userId: string, chat: StoredChat) {
  const sealed = await local.seal(JSON.stringify(chat.messages));
  if (sealed === null) return;
  await store.put({ key: `${userId}:${chat.chatId}`, userId, chatId: chat.chatId, sealed, complete: chat.complete });
}

/** The user's stored chats that parse and open under this browser's key (others are left out). */
export async function loadChats(store: SearchStore, local: LocalSealing, userId: string): Promise<StoredChat[]> {
  const out: StoredChat[] = [];
  for (const raw of await store.list(userId)) {
    const r = recordSchema.safeParse(raw);
    if (!r.success || r.data.userId !== userId) continue;
    const opened = await local.open(r.data.sealed).catch(() => null);
    if (opened === null) continue;
    try {
      const messages = messagesSchema.safeParse(JSON.parse(opened));
      if (messages.success) out.push({ chatId: r.data.chatId, messages: messages.data, complete: r.data.complete });
    } catch {
      // Not JSON: left out (a newer page may write another form).
    }
  }
  return out;
}

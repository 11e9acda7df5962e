/**
 * What the screens read from the ChatClient (immutable snapshots) and the pure
 * helpers that keep a conversation's messages ordered.
 */
import type { MessageContent } from '@app/e2ee';
import type { ChatMessage, ChatSummary, ResultData } from '@app/protocol';

/**
 * A message as shown: confirmed by the server, or still in the outbox (`pending`). An
 * outbox message that failed has `failed`, the reason it was not sent: it waits for the
 * user to retry or delete it. `local`: what an outbox message says (it has no ciphertext
 * yet); confirmed messages are opened by MessageCrypto. `uploading`: its file is on its way.
 */
export type UiMessage = ChatMessage & {
  pending?: true;
  failed?: string;
  local?: MessageContent;
  /** An outbox message whose file is uploading: how far (0 to 1). */
  uploading?: number;
};

export type LoadStatus = 'idle' | 'loading' | 'ready' | 'error';

export interface ConversationView {
  /**
   * Confirmed messages by (timestamp, id), failed ones among them by the time they were
   * typed, then the outbox's waiting ones in the order they were typed.
   */
  messages: readonly UiMessage[];
  /** Older messages exist on the server. */
  hasMore: boolean;
  /** Newer messages exist after the messages loaded (a window far back, after a jump). */
  hasNewer: boolean;
  /** The newest page. */
  status: LoadStatus;
  loadingOlder: boolean;
  loadingNewer: boolean;
  error: string | null;
  /** Locked, and this session has not entered the PIN: the screen asks for it. */
  locked: boolean;
}

export interface ChatListView {
  /** Every summary (archived and locked included), newest first. */
  chats: readonly ChatSummary[];
  status: LoadStatus;
  error: string | null;
}

export type ContactUser = ResultData['users']['users'][number];

export interface UserSearchView {
  query: string;
  users: readonly ContactUser[];
  /** Cursor of the next page, or null at the end. */
  next: string | null;
  status: LoadStatus;
  loadingMore: boolean;
  error: string | null;
}

export const EMPTY_CONVERSATION: ConversationView = Object.freeze({
  messages: Object.freeze([]) as readonly UiMessage[],
  hasMore: false,
  hasNewer: false,
  status: 'idle',
  loadingOlder: false,
  loadingNewer: false,
  error: null,
  locked: false,
});

export const EMPTY_CHAT_LIST: ChatListView = Object.freeze({
  chats: Object.freeze([]) as readonly ChatSummary[],
  status: 'idle',
  error: null,
});

export const EMPTY_SEARCH: UserSearchView = Object.freeze({
  query: '',
  users: Object.freeze([]) as readonly ContactUser[],
  next: null,
  status: 'idle',
  loadingMore: false,
  error: null,
});

/** Server order: by timestamp, then id (byte order, as the database compares them). */
export function compareMessages(a: ChatMessage, b: ChatMessage): number {
  if (a.timestamp !== b.timestamp) return a.timestamp - b.timestamp;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Index at which `m` belongs in the sorted `list` (first position not before it). */
function lowerBound(list: readonly ChatMessage[], m: ChatMessage): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareMessages(list[mid] as ChatMessage, m) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A new sorted array with `m` inserted, or replacing `previous` (the stored version of
 * the same id). Appending at the end, the common case, costs one comparison and a copy.
 */
export function upsertMessage(
  list: readonly ChatMessage[],
  m: ChatMessage,
  previous: ChatMessage | undefined,
): ChatMessage[] {
  const next = list.slice();
  if (previous) {
    const at = lowerBound(next, previous);
    if (next[at]?.id === previous.id) next.splice(at, 1);
  }
  const last = next.at(-1);
  if (!last || compareMessages(last, m) < 0) next.push(m);
  else next.splice(lowerBound(next, m), 0, m);
  return next;
}

/** The union of two message lists by id (`incoming` wins), sorted. */
export function mergeMessages(list: readonly ChatMessage[], incoming: readonly ChatMessage[]): ChatMessage[] {
  const byId = new Map<string, ChatMessage>();
  for (const m of list) byId.set(m.id, m);
  for (const m of incoming) byId.set(m.id, m);
  return [...byId.values()].sort(compareMessages);
}

/** The other participant of a message. */
export function peerOfMessage(m: ChatMessage, me: string): string {
  return m.senderId === me ? m.recipientId : m.senderId;
}

import { type ChatSummary, handleKey } from '@app/protocol';

/** Case-insensitive substring match on the peer's username (spec: chat list search). */
export function matchesUsername(chat: ChatSummary, query: string): boolean {
  return (chat.peer?.username ?? '').toLowerCase().includes(handleKey(query));
}

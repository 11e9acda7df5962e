/**
 * What a message's reply quote needs of its conversation (reply-quote.tsx): the messages
 * loaded so far by id, whether that is the whole history, who is who, and the way to jump
 * to a message. Given by the MessageList; only the quotes read it, so a new message
 * re-renders them and not every bubble.
 */
import { createContext, useContext } from 'react';
import type { UiMessage } from '@/client/conversations/conversation';

export interface ConversationLookup {
  byId: ReadonlyMap<string, UiMessage>;
  /** The whole history is loaded: a message not in `byId` is not in the chat. */
  complete: boolean;
  me: string;
  peerId: string;
  peerHandle: string;
  /** Scrolls to a message (loading older pages until it is found) and highlights it. */
  jumpTo(msgId: string): void;
}

export const ConversationContext = createContext<ConversationLookup | null>(null);

export function useConversationLookup(): ConversationLookup | null {
  return useContext(ConversationContext);
}

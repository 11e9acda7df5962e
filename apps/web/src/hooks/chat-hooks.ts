/**
 * React's view of the ChatClient: useSyncExternalStore over its immutable snapshots.
 * Hooks that show something from the server also tell the client they need it
 * (open conversation, watched presence, user profile, search page).
 */
import type { Access, ChatSummary, MessageStatus, Presence, Privacy, PublicUser } from '@app/protocol';
import { PRIVACY_DEFAULTS } from '@app/protocol';
import { useCallback, useEffect, useSyncExternalStore } from 'react';
import type { ChatClient } from '@/client/chat-client';
import { getChatClient, subscribeChatClient } from '@/client/chat-client-singleton';
import {
  type ChatListView,
  type ConversationView,
  EMPTY_CHAT_LIST,
  EMPTY_CONVERSATION,
  EMPTY_SEARCH,
  type UserSearchView,
} from '@/client/conversations/conversation';
import { refOfRequest, refOfSummary, type SealedRef, type Shown } from '@/client/crypto/message-crypto';
import { EMPTY_NOTIFICATIONS, type NotificationsView } from '@/client/notification-center';
import { NO_REACTIONS, type ShownReaction } from '@/client/reactions';
import type { ConnectionStatus } from '@/client/socket/chat-socket';

const noSubscribe = () => () => {};

export function useChatClient(): ChatClient | null {
  return useSyncExternalStore(subscribeChatClient, getChatClient, getChatClient);
}

/** Reads one snapshot of the client; `select` must return the same value until it changes. */
export function useClientValue<T>(select: (c: ChatClient) => T, fallback: T): T {
  const client = useChatClient();
  const get = () => (client ? select(client) : fallback);
  return useSyncExternalStore(client ? client.subscribe : noSubscribe, get, get);
}

/** What a sealed text says (a message, a preview, a request): re-rendered once it is opened. */
export function useShown(ref: SealedRef | null): Shown | null {
  return useClientValue((c) => (ref ? c.crypto.shown(ref) : null), null);
}

/** The reactions to a message that opened here, oldest first. */
export function useReactions(m: { chatId: string; id: string }): readonly ShownReaction[] {
  return useClientValue((c) => c.reactions.of(m.chatId, m.id), NO_REACTIONS);
}

/** A chat-list row's preview: its newest message. */
export function useSummaryText(chat: ChatSummary): Shown | null {
  return useClientValue((c) => {
    const ref = refOfSummary(chat, c.userId);
    return ref ? c.crypto.shown(ref) : null;
  }, null);
}

/**
 * The delivery state of a chat-list row's newest message when it is the user's own and not
 * deleted (undefined otherwise, or while unknown: it is looked up then).
 */
export function useOwnLastStatus(chat: ChatSummary): MessageStatus | undefined {
  const client = useChatClient();
  const online = useConnectionStatus() === 'online';
  const last = chat.last;
  const ownId = client && last && !last.deleted && last.senderId === client.userId ? last.id : null;
  const status = useClientValue((c) => (ownId ? c.own.get(ownId) : undefined), undefined);
  useEffect(() => {
    if (client && ownId && online && status === undefined) client.own.lookup(chat.peerId, ownId);
  }, [client, ownId, online, status, chat.peerId]);
  return status;
}

/** A request's first message: from `peerId` to me (`mine` false), or from me to them. */
export function useRequestText(
  r: { msgId: string; ct: string | null; legacyText: string | null; timestamp: number },
  peerId: string,
  mine: boolean,
): Shown | null {
  return useClientValue(
    (c) => c.crypto.shown(mine ? refOfRequest(r, c.userId, peerId) : refOfRequest(r, peerId, c.userId)),
    null,
  );
}

export function useConnectionStatus(): ConnectionStatus {
  return useClientValue((c) => c.status, 'offline');
}

/** Every chat summary, newest first (archived and locked included: screens filter). */
export function useChatList(): ChatListView {
  return useClientValue((c) => c.getChatList(), EMPTY_CHAT_LIST);
}

export function useChatSummary(peerId: string): ChatSummary | undefined {
  return useClientValue((c) => c.chatWith(peerId), undefined);
}

/** The conversation with `peerId`; opening it loads its newest page. */
export function useConversation(peerId: string): ConversationView {
  const client = useChatClient();
  useEffect(() => (client && peerId ? client.openConversation(peerId) : undefined), [client, peerId]);
  return useClientValue((c) => c.getConversation(peerId), EMPTY_CONVERSATION);
}

/** A user's presence, pushed by the server while a screen shows it. */
export function usePresence(userId: string | null | undefined): Presence | undefined {
  const client = useChatClient();
  useEffect(() => (client && userId ? client.users.watch([userId]) : undefined), [client, userId]);
  return useClientValue((c) => (userId ? c.getPresence(userId) : undefined), undefined);
}

/** Whether `peerId` is typing to us. */
export function useTyping(peerId: string): boolean {
  return useClientValue((c) => c.isTyping(peerId), false);
}

/** A user's public profile: undefined while unknown, null when there is no such user. */
export function useUser(userId: string): PublicUser | null | undefined {
  const client = useChatClient();
  const status = useConnectionStatus();
  const user = useClientValue((c) => c.getUser(userId), undefined);
  useEffect(() => {
    if (client && status === 'online' && user === undefined) client.users.request(userId);
  }, [client, status, user, userId]);
  return user;
}

/** The server-side username search (the first page, then more on `loadMore`). */
export function useUserSearch(query: string): UserSearchView & { loadMore: () => void } {
  const client = useChatClient();
  const status = useConnectionStatus();
  useEffect(() => {
    if (client && status === 'online') client.users.search(query);
  }, [client, status, query]);
  const view = useClientValue((c) => c.users.getSearch(query), EMPTY_SEARCH);
  const loadMore = useCallback(() => client?.users.loadMore(query), [client, query]);
  return { ...view, loadMore };
}

function subscribeVisibility(listener: () => void): () => void {
  document.addEventListener('visibilitychange', listener);
  return () => document.removeEventListener('visibilitychange', listener);
}

export function useDocumentVisible(): boolean {
  return useSyncExternalStore(
    subscribeVisibility,
    () => document.visibilityState === 'visible',
    () => true,
  );
}

/**
 * While the conversation is open and the page visible, messages from the peer that
 * are not read yet (or an unread count on the summary) are marked read.
 */
export function useMarkRead(peerId: string, view: ConversationView, enabled = true): void {
  const client = useChatClient();
  const status = useConnectionStatus();
  const visible = useDocumentVisible();
  const summary = useChatSummary(peerId);
  // With read receipts off, reading leaves messages delivered: only what is still 'sent' waits.
  const receipts = usePrivacy().readReceipts;
  const unread =
    (summary?.unreadCount ?? 0) > 0 ||
    summary?.markedUnread === true ||
    view.messages.some((m) => m.senderId === peerId && (receipts ? m.status !== 'read' : m.status === 'sent'));
  useEffect(() => {
    if (enabled && client && status === 'online' && visible && unread && view.status === 'ready') {
      client.markRead(peerId);
    }
  }, [enabled, client, status, visible, unread, view, peerId]);
}

const DEFAULT_PRIVACY: Privacy = { ...PRIVACY_DEFAULTS };

/** The user's own privacy settings as the server last said. */
export function usePrivacy(): Privacy {
  return useClientValue((c) => c.getPrivacy(), DEFAULT_PRIVACY);
}

/** Whether the user may message `peerId` (known once the conversation has loaded). */
export function useAccess(peerId: string): Access | undefined {
  return useClientValue((c) => c.getAccess(peerId), undefined);
}

/** The notification list and the bell count, live. */
export function useNotifications(): NotificationsView {
  return useClientValue((c) => c.getNotifications(), EMPTY_NOTIFICATIONS);
}

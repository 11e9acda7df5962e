/**
 * The photos and files of a chat (opened messages only, oldest first): what the photo viewer
 * steps through and the chat info's "Media and files" lists. The conversation's loaded
 * messages, joined to the chat's media pages from the server (client/conversations/
 * media-pages.ts: fetched while a screen using them is open, older ones on request), so
 * they cover the whole chat.
 */
import type { AttachmentRef } from '@app/e2ee';
import { createContext, useCallback, useContext, useEffect, useMemo } from 'react';
import type { ChatClient } from '@/client/chat-client';
import type { UiMessage } from '@/client/conversations/conversation';
import type { MediaPage } from '@/client/conversations/media-pages';
import { useChatClient, useClientValue } from './chat-hooks';

export interface ChatMedia {
  msgId: string;
  ref: AttachmentRef;
  /** The caption ('' when none). */
  caption: string;
  fromMe: boolean;
  timestamp: number;
}

const NONE: readonly ChatMedia[] = Object.freeze([]);
const NO_PAGE: MediaPage = Object.freeze({ messages: [], hasMore: false, loading: false, failed: false });

export interface ChatMediaList {
  items: readonly ChatMedia[];
  /** Older media are on the server, not loaded yet. */
  hasMore: boolean;
  loading: boolean;
  /** The last fetch failed: nothing more is fetched until loadOlder is asked for. */
  failed: boolean;
  loadOlder(): void;
}

/** The conversation's messages, and the media pages' ones it does not hold, oldest first. */
function messagesOf(c: ChatClient, peerId: string): readonly UiMessage[] {
  const own = c.getConversation(peerId).messages;
  const ids = new Set(own.map((m) => m.id));
  const more = c.media.view(peerId).messages.filter((m) => !ids.has(m.id));
  if (more.length === 0) return own;
  return [...more, ...own].sort((a, b) => a.timestamp - b.timestamp || (a.id < b.id ? -1 : 1));
}

function collect(c: ChatClient, peerId: string): ChatMedia[] {
  const out: ChatMedia[] = [];
  for (const m of messagesOf(c, peerId)) {
    if (m.deleted || m.pending) continue;
    const s = c.crypto.shown(m);
    if (s.kind !== 'text') continue;
    const ref = s.attachments?.[0];
    if (ref?.id)
      out.push({ msgId: m.id, ref, caption: s.text, fromMe: m.senderId === c.userId, timestamp: m.timestamp });
  }
  return out;
}

export function useChatMedia(peerId: string): ChatMediaList {
  const client = useChatClient();
  useEffect(() => client?.media.open(peerId), [client, peerId]);
  // A string snapshot (equal while nothing changed), so React re-renders only on a change.
  const key = useClientValue(
    (c) =>
      collect(c, peerId)
        .map((x) => `${x.msgId}:${x.ref.id}`)
        .join(','),
    '',
  );
  // The page's state: one object, replaced whenever it changes.
  const { hasMore, loading, failed } = useClientValue((c) => c.media.view(peerId), NO_PAGE);
  const items = useMemo(() => (client && key ? collect(client, peerId) : NONE), [client, peerId, key]);
  const loadOlder = useCallback(() => void client?.media.loadOlder(peerId), [client, peerId]);
  return { items, hasMore, loading, failed, loadOlder };
}

/** Opens the photo viewer at a message's photo (chat.tsx provides it). */
export const PhotoViewerContext = createContext<((msgId: string) => void) | null>(null);

export function useOpenPhoto(): ((msgId: string) => void) | null {
  return useContext(PhotoViewerContext);
}

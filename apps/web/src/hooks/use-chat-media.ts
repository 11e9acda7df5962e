/**
 * The photos and files of a conversation as this tab has it loaded (opened messages only,
 * oldest first): what the photo viewer steps through and the chat info's "Media and files"
 * lists. Older ones appear as older pages load.
 */
import type { AttachmentRef } from '@app/e2ee';
import { createContext, useContext, useMemo } from 'react';
import type { ChatClient } from '@/client/chat-client';
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

function collect(c: ChatClient, peerId: string): ChatMedia[] {
  const out: ChatMedia[] = [];
  for (const m of c.getConversation(peerId).messages) {
    if (m.deleted || m.pending) continue;
    const s = c.crypto.shown(m);
    if (s.kind !== 'text') continue;
    const ref = s.attachments?.[0];
    if (ref?.id)
      out.push({ msgId: m.id, ref, caption: s.text, fromMe: m.senderId === c.userId, timestamp: m.timestamp });
  }
  return out;
}

export function useChatMedia(peerId: string): readonly ChatMedia[] {
  const client = useChatClient();
  // A string snapshot (equal while nothing changed), so React re-renders only on a change.
  const key = useClientValue(
    (c) =>
      collect(c, peerId)
        .map((x) => `${x.msgId}:${x.ref.id}`)
        .join(','),
    '',
  );
  return useMemo(() => (client && key ? collect(client, peerId) : NONE), [client, peerId, key]);
}

/** Opens the photo viewer at a message's photo (chat.tsx provides it). */
export const PhotoViewerContext = createContext<((msgId: string) => void) | null>(null);

export function useOpenPhoto(): ((msgId: string) => void) | null {
  return useContext(PhotoViewerContext);
}

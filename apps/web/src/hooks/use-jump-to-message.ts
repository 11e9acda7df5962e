/**
 * Jumping to a message of the conversation (a reply's quote, a search result): scrolled
 * into the middle of the view and highlighted briefly. One not loaded yet is loaded with
 * the page around it (the history request `around`), joined to what is loaded when they
 * meet, or as a window of its own far back; a message the chat does not have is told.
 */
import type { Virtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useRef, useState } from 'react';
import { errorText } from '@/client/conversations/chat-list';
import { notifyError } from '@/components/ui/toaster';
import type { Row } from '@/lib/conversation-rows';

/** How long a message jumped to stays highlighted (ms). */
const HIGHLIGHT_MS = 2000;

export function useJumpToMessage(options: {
  rows: readonly Row[];
  virtualizer: Virtualizer<HTMLElement, Element>;
  /** Loads the page around a message not loaded. */
  loadAround(msgId: string): Promise<'found' | 'missing'>;
  /** The reader left the bottom (the list stops following new messages). */
  onLeaveEnd(): void;
}): { jumpTo(msgId: string): void; highlighted: string | null } {
  const [seeking, setSeeking] = useState<string | null>(null);
  const [highlighted, setHighlighted] = useState<string | null>(null);
  const latest = useRef(options);
  latest.current = options;

  const tryJump = useCallback((msgId: string): boolean => {
    const { rows, virtualizer, onLeaveEnd } = latest.current;
    const index = rows.findIndex((r) => r.kind === 'message' && r.m.id === msgId);
    if (index < 0) return false;
    onLeaveEnd();
    virtualizer.scrollToIndex(index, { align: 'center' });
    setHighlighted(msgId);
    return true;
  }, []);

  const jumpTo = useCallback(
    (msgId: string) => {
      if (tryJump(msgId)) return;
      // Away from the bottom before the page comes, so the list does not follow it there.
      latest.current.onLeaveEnd();
      setSeeking(msgId);
      const done = (problem: [string, string] | null) => {
        setSeeking((s) => (s === msgId ? null : s));
        if (problem) notifyError(...problem);
      };
      latest.current.loadAround(msgId).then(
        (r) => {
          // Found: the effect below scrolls to it once its row is drawn.
          if (r === 'missing') done(['Original message not found', 'It is no longer in this chat.']);
        },
        (e: unknown) => done(['Could not load that message', errorText(e)]),
      );
    },
    [tryJump],
  );

  const { rows } = options;
  useEffect(() => {
    if (seeking !== null && rows.length > 0 && tryJump(seeking)) setSeeking(null);
  }, [seeking, rows, tryJump]);

  useEffect(() => {
    if (highlighted === null) return;
    const t = setTimeout(() => setHighlighted(null), HIGHLIGHT_MS);
    return () => clearTimeout(t);
  }, [highlighted]);

  return { jumpTo, highlighted };
}

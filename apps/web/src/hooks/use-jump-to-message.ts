/**
 * Jumping to a message of the conversation (a reply's quote, a search result): scrolled
 * into the middle of the view and highlighted briefly. One not loaded yet is looked for in
 * older pages, loaded one after another until it is found or the history ends; then the
 * user is told it cannot be found.
 */
import type { Virtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ConversationView } from '@/client/conversations/conversation';
import { notifyError } from '@/components/ui/toaster';
import type { Row } from '@/lib/conversation-rows';

/** How long a message jumped to stays highlighted (ms). */
const HIGHLIGHT_MS = 2000;

export function useJumpToMessage(options: {
  rows: readonly Row[];
  view: ConversationView;
  virtualizer: Virtualizer<HTMLElement, Element>;
  onLoadOlder(): void;
  /** The reader left the bottom (the list stops following new messages). */
  onLeaveEnd(): void;
}): { jumpTo(msgId: string): void; highlighted: string | null } {
  const [seeking, setSeeking] = useState<string | null>(null);
  const [highlighted, setHighlighted] = useState<string | null>(null);
  const latest = useRef(options);
  latest.current = options;
  /** How many messages were loaded when the last page was asked for while seeking. */
  const loadedCount = useRef(-1);

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
      if (!latest.current.view.hasMore) {
        notifyError('Original message not found', 'It is no longer in this chat.');
        return;
      }
      // The effect below loads the pages.
      loadedCount.current = -1;
      setSeeking(msgId);
    },
    [tryJump],
  );

  // Each page loaded while seeking: found, the next page, or the end of the history (or a
  // page that brought nothing: a failed load, not tried again in a loop).
  const { view } = options;
  useEffect(() => {
    if (seeking === null || view.loadingOlder || view.status !== 'ready') return;
    if (tryJump(seeking)) {
      setSeeking(null);
      loadedCount.current = -1;
    } else if (view.hasMore && view.messages.length > loadedCount.current) {
      loadedCount.current = view.messages.length;
      latest.current.onLoadOlder();
    } else {
      setSeeking(null);
      loadedCount.current = -1;
      notifyError('Original message not found', 'It is no longer in this chat.');
    }
  }, [seeking, view, tryJump]);

  useEffect(() => {
    if (highlighted === null) return;
    const t = setTimeout(() => setHighlighted(null), HIGHLIGHT_MS);
    return () => clearTimeout(t);
  }, [highlighted]);

  return { jumpTo, highlighted };
}

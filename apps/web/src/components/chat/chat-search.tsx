/**
 * "Search in chat", under the chat's header: a field, the number of messages found, and
 * the list of them (newest first) from this browser's search index; choosing one jumps to
 * it in the conversation (loading older pages until it is there) and folds the list away.
 * Escape or the close button ends the search and gives focus back to the header's button.
 */
import { Search, X } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { IndexingStatus } from '@/components/search/indexing-status';
import { SearchHitText } from '@/components/search/search-hit-row';
import { useMessageSearch } from '@/hooks/use-message-search';
import { useMinuteClock } from '@/hooks/use-minute-clock';
import { quotedSender } from './reply-quote';

export function ChatSearch({
  chatId,
  me,
  peerId,
  peerHandle,
  onJump,
  onClose,
}: {
  chatId: string;
  me: string;
  peerId: string;
  peerHandle: string;
  onJump(msgId: string): void;
  onClose(): void;
}) {
  const [query, setQuery] = useState('');
  const [listOpen, setListOpen] = useState(true);
  const hits = useMessageSearch(query, chatId, 100);
  const now = useMinuteClock();
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  const searching = query.trim().length > 0;
  return (
    <search
      className="relative z-20 border-b border-border bg-background"
      onKeyDown={(e) => {
        if (e.key !== 'Escape') return;
        e.preventDefault();
        e.stopPropagation();
        onClose();
      }}
    >
      <div className="flex items-center gap-2 px-3 py-2">
        <Search className="size-4 shrink-0 text-muted-foreground" aria-hidden />
        <input
          ref={input}
          type="search"
          aria-label="Search in chat"
          placeholder="Search in chat"
          value={query}
          onChange={(e) => {
            setQuery(e.target.value);
            setListOpen(true);
          }}
          onClick={() => setListOpen(true)}
          className="h-9 min-w-0 flex-1 rounded-lg border border-input bg-muted px-3 text-base outline-none focus-visible:border-focus-ring focus-visible:ring-1 focus-visible:ring-focus-ring md:text-sm"
        />
        <p role="status" className="shrink-0 text-xs text-muted-foreground">
          {searching ? (hits.length === 1 ? '1 message' : `${hits.length} messages`) : ''}
        </p>
        <button
          type="button"
          aria-label="Close search"
          onClick={onClose}
          className="flex size-9 shrink-0 cursor-pointer items-center justify-center rounded-full text-muted-foreground hover:bg-accent hover:text-foreground focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
        >
          <X className="size-4" aria-hidden />
        </button>
      </div>
      {searching && listOpen ? (
        <div className="absolute inset-x-0 top-full max-h-[60vh] overflow-y-auto border-b border-border bg-background shadow-lg">
          <IndexingStatus />
          {hits.length === 0 ? (
            <p className="px-4 py-3 text-sm text-muted-foreground">No messages match “{query.trim()}”</p>
          ) : (
            <ul aria-label="Messages found" className="divide-y divide-border">
              {hits.map((h) => (
                <li key={h.message.msgId}>
                  <button
                    type="button"
                    onClick={() => {
                      // The list folds away; focus stays in the search (Escape ends it).
                      setListOpen(false);
                      input.current?.focus({ preventScroll: true });
                      onJump(h.message.msgId);
                    }}
                    className="flex w-full cursor-pointer items-start gap-3 px-4 py-3 hover:bg-accent focus-visible:bg-accent focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-inset focus-visible:ring-ring"
                  >
                    <SearchHitText
                      hit={h}
                      sender={quotedSender(h.message.senderId, { me, peerId, peerHandle })}
                      now={now}
                    />
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      ) : null}
    </search>
  );
}

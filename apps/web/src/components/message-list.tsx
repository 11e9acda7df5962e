import { useVirtualizer } from '@tanstack/react-virtual';
import { LockKeyhole, MessageCircle, ShieldAlert } from 'lucide-react';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef } from 'react';
import type { ConversationView, UiMessage } from '@/lib/conversation';
import { useE2eeSince } from '@/lib/public-settings';
import { MessageBubble } from './message-bubble';
import { Spinner } from './spinner';
import { TypingDots } from './typing-dots';
import type { MenuAnchor } from './ui/action-menu';

const ESTIMATED_ROW_PX = 52;
/** Closer than this to the bottom counts as "at the bottom": new messages scroll into view. */
const AT_END_PX = 96;
/** Closer than this to the top loads the previous page. */
const LOAD_OLDER_PX = 800;
const TYPING_KEY = '__typing__';

type Marker = { kind: 'keys' | 'e2ee'; key: string; at: number };
type Row = { kind: 'message'; m: UiMessage } | Marker;

/**
 * The messages with lines between them: "security code changed" at each time the peer's
 * identity changed, and where end-to-end encryption began on this deployment, each after
 * the messages sent up to then (and only when the loaded conversation began before it).
 */
function rowsOf(messages: readonly UiMessage[], keyChanges: readonly number[], e2eeSince: number | null): Row[] {
  const first = messages[0];
  if (!first) return [];
  const markers: Marker[] = keyChanges.map((at) => ({ kind: 'keys' as const, key: `keys:${at}`, at }));
  if (e2eeSince !== null) markers.push({ kind: 'e2ee', key: 'e2ee', at: e2eeSince });
  const due = markers.filter((k) => k.at >= first.timestamp).sort((a, b) => a.at - b.at);
  const rows: Row[] = [];
  let next = 0;
  for (const m of messages) {
    for (; next < due.length && (due[next] as Marker).at < m.timestamp; next++) rows.push(due[next] as Marker);
    rows.push({ kind: 'message', m });
  }
  rows.push(...due.slice(next));
  return rows;
}

/** "Messages above were sent before end-to-end encryption" (WhatsApp's and Signal's line). */
function E2eeLine() {
  return (
    <div className="flex justify-center px-3 py-1.5">
      <p className="flex items-center gap-1.5 rounded-full bg-background/90 px-3 py-1 text-xs text-muted-foreground shadow-sm">
        <LockKeyhole className="size-3.5 shrink-0" aria-hidden />
        Messages above were sent before end-to-end encryption
      </p>
    </div>
  );
}

/** "@bob's security code changed. Tap to verify." */
function KeyChangeLine({ peerHandle, onVerify }: { peerHandle: string; onVerify(): void }) {
  return (
    <div className="flex justify-center px-3 py-1.5">
      <button
        type="button"
        onClick={onVerify}
        className="flex items-center gap-1.5 rounded-full bg-background/90 px-3 py-1 text-xs text-muted-foreground shadow-sm hover:text-foreground focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
      >
        <ShieldAlert className="size-3.5 shrink-0" aria-hidden />
        {peerHandle}&rsquo;s security code changed. Tap to verify.
      </button>
    </div>
  );
}

/**
 * The conversation, virtualised (rows measured as they render), so a chat of any
 * length opens at its newest message and scrolls smoothly. Scrolling near the top
 * loads the previous page while the rows in view stay put; a new message scrolls
 * smoothly into view when the reader is at the bottom (and always after sending).
 */
export function MessageList({
  view,
  me,
  peerHandle,
  emptyText,
  typing,
  sentCount,
  keyChanges = [],
  onVerify,
  onLoadOlder,
  onMenu,
}: {
  view: ConversationView;
  me: string;
  peerHandle: string;
  /** Instead of 'No messages yet. Say hi…'. */
  emptyText?: string;
  typing: boolean;
  /** Bumped when the user sends: scroll to the newest message. */
  sentCount: number;
  /** When the peer's identity changed (ms, server clock). */
  keyChanges?: readonly number[];
  onVerify?: () => void;
  onLoadOlder: () => void;
  onMenu: (message: UiMessage, anchor: MenuAnchor) => void;
}) {
  const scrollRef = useRef<HTMLElement>(null);
  const { messages } = view;
  const e2eeSince = useE2eeSince();
  const rows = useMemo(() => rowsOf(messages, keyChanges, e2eeSince), [messages, keyChanges, e2eeSince]);
  const count = rows.length + (typing ? 1 : 0);

  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ESTIMATED_ROW_PX,
    getItemKey: (i) => {
      const row = rows[i];
      return row ? (row.kind === 'message' ? row.m.id : row.key) : TYPING_KEY;
    },
    overscan: 10,
    paddingStart: 12,
    paddingEnd: 12,
    // Rows prepended above (an older page) keep the rows in view where they are.
    anchorTo: 'end',
    scrollEndThreshold: AT_END_PX,
  });

  // Whether the reader is at the bottom: only scrolling up leaves it.
  const atEnd = useRef(true);
  const lastTop = useRef(0);
  const canLoadOlder = view.status === 'ready' && view.hasMore && !view.loadingOlder;
  const onScroll = useCallback(() => {
    const el = scrollRef.current;
    if (!el) return;
    const distance = el.scrollHeight - el.scrollTop - el.clientHeight;
    const up = el.scrollTop < lastTop.current - 1;
    lastTop.current = el.scrollTop;
    if (distance <= AT_END_PX) atEnd.current = true;
    else if (up) atEnd.current = false;
    if (up && el.scrollTop < LOAD_OLDER_PX && canLoadOlder) onLoadOlder();
  }, [canLoadOlder, onLoadOlder]);

  // Open at the newest message.
  useLayoutEffect(() => {
    virtualizer.scrollToEnd();
  }, [virtualizer]);

  // Follow new messages (and the typing dots) while at the bottom.
  const lastKey = count > 0 ? virtualizer.options.getItemKey(count - 1) : null;
  const seenLastKey = useRef(lastKey);
  useEffect(() => {
    if (lastKey === seenLastKey.current) return;
    seenLastKey.current = lastKey;
    if (atEnd.current) virtualizer.scrollToEnd({ behavior: 'smooth' });
  }, [lastKey, virtualizer]);

  // After sending, go to the newest message even when reading older ones.
  const seenSent = useRef(sentCount);
  useEffect(() => {
    if (sentCount === seenSent.current) return;
    seenSent.current = sentCount;
    atEnd.current = true;
    // Smooth over a short way; a jump from far up in the history.
    const el = scrollRef.current;
    const far = el ? el.scrollHeight - el.scrollTop - el.clientHeight > 2 * el.clientHeight : false;
    virtualizer.scrollToEnd({ behavior: far ? 'auto' : 'smooth' });
  }, [sentCount, virtualizer]);

  // A page that does not fill the screen cannot be scrolled up: load more at once.
  useEffect(() => {
    const el = scrollRef.current;
    if (el && canLoadOlder && el.scrollHeight <= el.clientHeight + 1) onLoadOlder();
  });

  const items = virtualizer.getVirtualItems();

  return (
    <div className="relative min-h-0 flex-1">
      <section
        ref={scrollRef}
        onScroll={onScroll}
        className="flex h-full flex-col overflow-y-auto overscroll-contain [overflow-anchor:none]"
        aria-label={`Conversation with ${peerHandle}`}
        tabIndex={-1}
      >
        {count === 0 ? (
          <div className="flex flex-1 flex-col items-center justify-center gap-2 p-6 text-center text-muted-foreground">
            <MessageCircle className="size-10 text-primary/60" aria-hidden />
            <p className="text-sm">{emptyText ?? `No messages yet. Say hi to ${peerHandle}!`}</p>
          </div>
        ) : (
          // mt-auto: a short conversation sits at the bottom, next to the input.
          <div className="relative mt-auto w-full shrink-0" style={{ height: virtualizer.getTotalSize() }}>
            {items.map((item) => {
              const row = rows[item.index];
              return (
                <div
                  key={item.key}
                  data-index={item.index}
                  ref={virtualizer.measureElement}
                  className="absolute left-0 top-0 w-full"
                  style={{ transform: `translateY(${item.start}px)` }}
                >
                  {row?.kind === 'message' ? (
                    <MessageBubble message={row.m} own={row.m.senderId === me} onMenu={onMenu} />
                  ) : row?.kind === 'keys' ? (
                    <KeyChangeLine peerHandle={peerHandle} onVerify={() => onVerify?.()} />
                  ) : row ? (
                    <E2eeLine />
                  ) : (
                    <div className="px-3 py-1">
                      <TypingDots handle={peerHandle} />
                    </div>
                  )}
                </div>
              );
            })}
          </div>
        )}
      </section>
      {view.loadingOlder ? (
        <div className="pointer-events-none absolute inset-x-0 top-2 flex justify-center">
          <span className="rounded-full bg-background p-1.5 shadow">
            <Spinner />
          </span>
        </div>
      ) : null}
    </div>
  );
}

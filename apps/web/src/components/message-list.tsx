import { useVirtualizer } from '@tanstack/react-virtual';
import { MessageCircle } from 'lucide-react';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { ConversationView, UiMessage } from '@/client/conversations/conversation';
import { useJumpToMessage } from '@/hooks/use-jump-to-message';
import { useMinuteClock } from '@/hooks/use-minute-clock';
import type { PeerPaging } from '@/hooks/use-peer-paging';
import { useE2eeSince } from '@/hooks/use-public-settings';
import { Arrivals } from '@/lib/arrivals';
import { conversationRows, type Row, type UnreadMark, unreadMark } from '@/lib/conversation-rows';
import { formatClock } from '@/lib/format-time';
import { cn } from '@/lib/utils';
import { ConversationContext, type ConversationLookup } from './chat/conversation-context';
import { DayLine, E2eeLine, KeyChangeLine, UnreadLine } from './chat/conversation-lines';
import { IncomingAnnouncer } from './chat/incoming-announcer';
import { JumpToLatest } from './chat/jump-to-latest';
import { MessageBubble } from './message-bubble';
import { Spinner } from './spinner';
import { TypingDots } from './typing-dots';
import type { MenuAnchor } from './ui/action-menu';

const ESTIMATED_ROW_PX = 52;
/** Closer than this to the bottom counts as "at the bottom": new messages scroll into view. */
const AT_END_PX = 96;
/** Closer than this to the top loads the previous page (to the bottom, the next in a window far back). */
const LOAD_PAGE_PX = 800;
const TYPING_KEY = '__typing__';
/** The live region keeps the last few arrivals (each is read out once, as it is added). */
const ANNOUNCED = 5;

/** How far the scroller is from its bottom (px). */
function distanceToEnd(el: HTMLElement | null): number {
  return el ? el.scrollHeight - el.scrollTop - el.clientHeight : 0;
}

/**
 * The conversation, virtualised (rows measured as they render), so a chat of any
 * length opens at its newest message, or at the line above the messages that were
 * unread, and scrolls smoothly. It is a list for screen readers (each row an item of
 * the whole set, each message saying its sender and time first), and new messages from
 * the peer are read out in a polite live region. Scrolling near the top loads the
 * previous page while the rows in view stay put; a new message scrolls smoothly into
 * view when the reader is at the bottom (and always after sending). Away from the
 * bottom, a button jumps back to it, counting the messages that came meanwhile. A reply's
 * quote jumps to its original (use-jump-to-message.ts), which shows highlighted; one far
 * back is loaded with the page around it, a window away from the newest, paged down as
 * the reader scrolls (the bottom button goes back to the newest at once).
 */
export function MessageList({
  view,
  me,
  peerId,
  peerHandle,
  unreadCount,
  emptyText,
  typing,
  sentCount,
  keyChanges = [],
  onVerify,
  paging,
  onMenu,
  onReply,
  onReact,
  jump,
}: {
  view: ConversationView;
  me: string;
  peerId: string;
  peerHandle: string;
  /** The chat's unread count as the server says (undefined until known): read once, when it opens. */
  unreadCount: number | undefined;
  /** Instead of 'No messages yet. Say hi…'. */
  emptyText?: string;
  typing: boolean;
  /** Bumped when the user sends: scroll to the newest message. */
  sentCount: number;
  /** When the peer's identity changed (ms, server clock). */
  keyChanges?: readonly number[];
  onVerify?: () => void;
  paging: PeerPaging;
  onMenu: (message: UiMessage, anchor: MenuAnchor) => void;
  onReply?: (message: UiMessage) => void;
  onReact?: (message: UiMessage, anchor: MenuAnchor) => void;
  /** A message to go to (a search result): each new object jumps once. */
  jump?: { msgId: string } | null;
}) {
  const scrollRef = useRef<HTMLElement>(null);
  const { messages } = view;
  const e2eeSince = useE2eeSince();
  const now = useMinuteClock();

  // Where the unread messages began when the chat was opened: fixed for this visit.
  const [unread, setUnread] = useState<UnreadMark | null | undefined>(undefined);
  if (unread === undefined && view.status === 'ready' && unreadCount !== undefined) {
    setUnread(unreadMark(messages, peerId, unreadCount));
  }

  const rows = useMemo(
    () => conversationRows(messages, { keyChanges, e2eeSince, unread, fromStart: !view.hasMore }),
    [messages, keyChanges, e2eeSince, unread, view.hasMore],
  );
  const count = rows.length + (typing ? 1 : 0);

  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ESTIMATED_ROW_PX,
    getItemKey: (i) => rows[i]?.key ?? TYPING_KEY,
    overscan: 10,
    paddingStart: 12,
    paddingEnd: 12,
    // Rows prepended above (an older page) keep the rows in view where they are.
    anchorTo: 'end',
    scrollEndThreshold: AT_END_PX,
  });

  // Whether the reader is at the bottom: only scrolling up (or opening at the unread line) leaves it.
  const atEnd = useRef(true);
  const lastTop = useRef(0);
  // Away from the bottom: the jump button shows, counting the arrivals meanwhile.
  const [away, setAway] = useState(false);
  const [newCount, setNewCount] = useState(0);
  const idle = view.status === 'ready' && !view.loadingOlder && !view.loadingNewer;
  const canLoadOlder = idle && view.hasMore;
  const canLoadNewer = idle && view.hasNewer;
  const onScroll = useCallback(() => {
    const el = scrollRef.current;
    if (!el) return;
    const distance = distanceToEnd(el);
    const up = el.scrollTop < lastTop.current - 1;
    lastTop.current = el.scrollTop;
    // The bottom of a window far back is not the newest message.
    if (distance <= AT_END_PX && !view.hasNewer) atEnd.current = true;
    else if (up || view.hasNewer) atEnd.current = false;
    setAway(!atEnd.current);
    if (atEnd.current) setNewCount(0);
    if (up && el.scrollTop < LOAD_PAGE_PX && canLoadOlder) paging.older();
    if (!up && distance < LOAD_PAGE_PX && canLoadNewer) paging.newer();
  }, [canLoadOlder, canLoadNewer, view.hasNewer, paging]);

  const leaveEnd = useCallback(() => {
    atEnd.current = false;
    setAway(true);
  }, []);
  const { jumpTo, highlighted } = useJumpToMessage({
    rows,
    virtualizer,
    loadAround: paging.around,
    onLeaveEnd: leaveEnd,
  });
  useEffect(() => {
    if (jump) jumpTo(jump.msgId);
  }, [jump, jumpTo]);
  const lookup = useMemo<ConversationLookup>(
    () => ({
      byId: new Map(messages.map((m) => [m.id, m])),
      complete: view.status === 'ready' && !view.hasMore,
      me,
      peerId,
      peerHandle,
      jumpTo,
    }),
    [messages, view.status, view.hasMore, me, peerId, peerHandle, jumpTo],
  );

  // Open at the newest message; once the unread count is known, at the unread line.
  const unreadIndex = rows.findIndex((r) => r.kind === 'unread');
  const opened = useRef(false);
  useLayoutEffect(() => {
    if (opened.current) return;
    if (unread === undefined || unreadIndex < 0) {
      virtualizer.scrollToEnd();
      if (unread !== undefined) opened.current = true;
      return;
    }
    opened.current = true;
    atEnd.current = false;
    virtualizer.scrollToIndex(unreadIndex, { align: 'start' });
    // The unread line within the last screen: the list is at its bottom after all.
    const settle = () => {
      if (distanceToEnd(scrollRef.current) <= AT_END_PX) atEnd.current = true;
      setAway(!atEnd.current);
    };
    const t = setTimeout(settle, 300);
    return () => clearTimeout(t);
  }, [virtualizer, unread, unreadIndex]);

  // Follow new messages (and the typing dots) while at the bottom; the newest page that
  // replaces a window far back is gone to at once.
  const lastKey = count > 0 ? virtualizer.options.getItemKey(count - 1) : null;
  const seenLastKey = useRef(lastKey);
  const snapToEnd = useRef(false);
  useEffect(() => {
    if (lastKey === seenLastKey.current) return;
    seenLastKey.current = lastKey;
    if (atEnd.current) virtualizer.scrollToEnd({ behavior: snapToEnd.current ? 'auto' : 'smooth' });
    snapToEnd.current = false;
  }, [lastKey, virtualizer]);

  // Messages arriving from the peer: read out, and counted on the jump button while away.
  // Pages loaded in or out of a window far back are not arrivals.
  const arrivals = useRef<Arrivals | null>(null);
  const [announced, setAnnounced] = useState<UiMessage[]>([]);
  const wasWindow = useRef(view.hasNewer);
  useEffect(() => {
    if (view.status !== 'ready') return;
    const live = !wasWindow.current && !view.hasNewer;
    wasWindow.current = view.hasNewer;
    if (!arrivals.current) {
      arrivals.current = new Arrivals(me, messages);
      return;
    }
    const fresh = arrivals.current.take(messages, live);
    if (fresh.length === 0) return;
    setAnnounced((a) => [...a, ...fresh].slice(-ANNOUNCED));
    if (!atEnd.current) setNewCount((n) => n + fresh.length);
  }, [messages, me, view.status, view.hasNewer]);

  const jumpToEnd = useCallback(() => {
    const far = distanceToEnd(scrollRef.current) > 2 * (scrollRef.current?.clientHeight ?? 0);
    atEnd.current = true;
    setAway(false);
    setNewCount(0);
    if (view.hasNewer) {
      // A window far back: the newest page replaces it, and the list goes to its end.
      snapToEnd.current = true;
      paging.newest();
      return;
    }
    // Smooth over a short way; a jump from far up in the history.
    virtualizer.scrollToEnd({ behavior: far ? 'auto' : 'smooth' });
  }, [virtualizer, view.hasNewer, paging]);

  // After sending, go to the newest message even when reading older ones.
  const seenSent = useRef(sentCount);
  useEffect(() => {
    if (sentCount === seenSent.current) return;
    seenSent.current = sentCount;
    jumpToEnd();
  }, [sentCount, jumpToEnd]);

  // A page that does not fill the screen cannot be scrolled: load more at once.
  useEffect(() => {
    const el = scrollRef.current;
    if (!el || el.scrollHeight > el.clientHeight + 1) return;
    if (canLoadOlder) paging.older();
    else if (canLoadNewer) paging.newer();
  });

  const items = virtualizer.getVirtualItems();
  const senderOf = (m: UiMessage) => (m.senderId === me ? 'you' : peerHandle);
  const renderRow = (row: Row | undefined) => {
    if (!row) {
      return (
        <div className="px-3 py-1">
          <TypingDots handle={peerHandle} />
        </div>
      );
    }
    if (row.kind === 'message') {
      const { m } = row;
      return (
        <>
          <span className="sr-only">{`${m.senderId === me ? 'You' : peerHandle}, ${formatClock(m.timestamp)}: `}</span>
          <MessageBubble
            message={m}
            own={m.senderId === me}
            sender={senderOf(m)}
            first={row.first}
            last={row.last}
            highlighted={highlighted === m.id}
            onMenu={onMenu}
            onReply={onReply}
            onReact={onReact}
          />
        </>
      );
    }
    if (row.kind === 'day') return <DayLine at={row.at} now={now} />;
    if (row.kind === 'unread') return <UnreadLine count={row.count} />;
    if (row.kind === 'keys') return <KeyChangeLine peerHandle={peerHandle} onVerify={() => onVerify?.()} />;
    return <E2eeLine />;
  };

  return (
    <ConversationContext.Provider value={lookup}>
      <div className="relative min-h-0 flex-1">
        <section
          ref={scrollRef}
          onScroll={onScroll}
          className="flex h-full flex-col overflow-y-auto overscroll-contain [overflow-anchor:none]"
          aria-label={`Conversation with ${peerHandle}`}
          data-history-scroller
          tabIndex={-1}
        >
          {count === 0 ? (
            <div className="flex flex-1 flex-col items-center justify-center gap-2 p-6 text-center text-muted-foreground">
              <MessageCircle className="size-10 text-primary/60" aria-hidden />
              <p className="text-sm">{emptyText ?? `No messages yet. Say hi to ${peerHandle}!`}</p>
            </div>
          ) : (
            // mt-auto: a short conversation sits at the bottom, next to the input.
            <ol
              aria-label="Messages"
              className="relative mt-auto w-full shrink-0"
              style={{ height: virtualizer.getTotalSize() }}
            >
              {items.map((item) => (
                <li
                  key={item.key}
                  aria-setsize={count}
                  aria-posinset={item.index + 1}
                  data-index={item.index}
                  ref={virtualizer.measureElement}
                  className="absolute left-0 top-0 w-full"
                  style={{ transform: `translateY(${item.start}px)` }}
                >
                  {renderRow(rows[item.index])}
                </li>
              ))}
            </ol>
          )}
        </section>
        {view.loadingOlder || view.loadingNewer ? (
          <div
            className={cn(
              'pointer-events-none absolute inset-x-0 flex justify-center',
              view.loadingOlder ? 'top-2' : 'bottom-3',
            )}
          >
            <span className="rounded-full bg-background p-1.5 shadow">
              <Spinner />
            </span>
          </div>
        ) : null}
        {(away || view.hasNewer) && count > 0 ? (
          <JumpToLatest
            count={newCount}
            onJump={() => {
              jumpToEnd();
              // The button goes away: keyboard focus stays in the conversation.
              scrollRef.current?.focus({ preventScroll: true });
            }}
          />
        ) : null}
        <IncomingAnnouncer messages={announced} current={messages} handle={peerHandle} />
      </div>
    </ConversationContext.Provider>
  );
}

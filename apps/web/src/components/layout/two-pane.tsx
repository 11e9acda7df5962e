import { lazy, Suspense, useState } from 'react';
import { Outlet, useMatch } from 'react-router';
import { Spinner } from '@/components/spinner';
import { useFillViewport } from '@/hooks/use-fill-viewport';
import { useMediaQuery } from '@/hooks/use-media-query';
import { EmptyPane } from './empty-pane';
import { type Pane, PaneContext, PaneScrollerContext } from './pane-context';

const ChatPage = lazy(() => import('@/pages/chat'));

/** From this width the signed-in screens are two panes side by side (tailwind's `lg`). */
export const TWO_PANES = '(min-width: 1024px)';

const PANES = {
  left: { primary: { role: 'primary', side: 'left' }, secondary: { role: 'secondary', side: 'left' } },
  right: { primary: { role: 'primary', side: 'right' }, secondary: { role: 'secondary', side: 'right' } },
} as const satisfies Record<string, Record<string, Pane>>;

/** One screen at a time: the slot stretches the screen in it to the window's height. */
const ALONE = 'flex flex-1 flex-col *:flex-1';
const SLOT = {
  left: 'w-[22rem] shrink-0 scroll-pt-[4.5rem] overflow-y-auto border-r border-border bg-background xl:w-[26rem]',
  right: 'flex min-w-0 flex-1 flex-col',
};

function Loading() {
  return (
    <div className="flex flex-1 items-center justify-center">
      <Spinner />
    </div>
  );
}

/** The props of the pane that does not hold the page's main landmark: a named region. */
function region(secondary: boolean, label: string) {
  return secondary ? ({ role: 'region', 'aria-label': label } as const) : {};
}

/** How the slots are drawn: one at a time (`wide` false), or side by side. */
function arrangement(wide: boolean, chatOpen: boolean) {
  if (!wide) {
    const alone = { pane: null, className: ALONE, region: {} };
    return { className: 'flex min-h-full flex-col', left: chatOpen ? null : alone, right: chatOpen ? alone : null };
  }
  return {
    className: 'flex bg-background',
    left: {
      pane: PANES.left[chatOpen ? 'secondary' : 'primary'],
      className: SLOT.left,
      region: region(chatOpen, 'Chats'),
    },
    right: {
      pane: PANES.right[chatOpen ? 'primary' : 'secondary'],
      className: SLOT.right,
      region: region(!chatOpen, 'Conversation'),
    },
  };
}

/**
 * The signed-in screens, in two slots. The left slot shows the routed screen: the chat list
 * (the element of /home and of /chat/:userId), contacts, notifications, settings and its
 * sub-screens. The right slot shows the conversation named by the URL.
 *
 * On a phone (up to 1023 px) one slot at a time: the conversation on /chat/:userId, the left
 * slot elsewhere. From 1024 px both side by side, as desktop messengers draw them, with "Select
 * a chat" on the right while none is open; while a left-pane screen is open, the chat that was
 * open stays beside it (as in WhatsApp Web) until /home closes it. The routes stay real: a deep
 * link, a reload or Back shows the same panes. The slots keep their place in the tree, so
 * opening a chat does not remount the list (its search, its scroll), and a window resized
 * across 1024 px keeps the screen's state (a dialog, a half-typed field).
 */
export default function TwoPane() {
  const wide = useMediaQuery(TWO_PANES);
  const chat = useMatch('/chat/:userId');
  const home = useMatch('/home');
  const routedPeer = chat?.params.userId ?? null;
  // The chat shown on the right: the routed one; kept while a left-pane screen is open.
  const [shownPeer, setShownPeer] = useState<string | null>(routedPeer);
  const current = routedPeer ?? (home ? null : shownPeer);
  if (current !== shownPeer) setShownPeer(current);
  const [scroller, setScroller] = useState<HTMLElement | null>(null);
  const fill = useFillViewport(wide);

  const { className, left, right } = arrangement(wide, chat !== null);
  const rightPeer = wide ? current : routedPeer;

  return (
    <div ref={fill.ref} style={wide ? fill.style : undefined} className={className}>
      {left ? (
        <div ref={setScroller} {...left.region} className={left.className}>
          <PaneScrollerContext.Provider value={wide ? scroller : null}>
            <PaneContext.Provider value={left.pane}>
              <Suspense fallback={<Loading />}>
                <Outlet />
              </Suspense>
            </PaneContext.Provider>
          </PaneScrollerContext.Provider>
        </div>
      ) : null}
      {right ? (
        <div {...right.region} className={right.className}>
          <PaneContext.Provider value={right.pane}>
            <Suspense fallback={<Loading />}>
              {rightPeer ? <ChatPage key={rightPeer} peerId={rightPeer} /> : <EmptyPane />}
            </Suspense>
          </PaneContext.Provider>
        </div>
      ) : null}
    </div>
  );
}

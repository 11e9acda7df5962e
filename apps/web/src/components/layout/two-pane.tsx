import { lazy, type ReactNode, Suspense, useState } from 'react';
import { Outlet, useMatch } from 'react-router';
import { Spinner } from '@/components/spinner';
import { useFillViewport } from '@/hooks/use-fill-viewport';
import { useMediaQuery } from '@/hooks/use-media-query';
import { EmptyPane } from './empty-pane';
import { PaneContext, PaneScrollerContext } from './pane-context';

const HomePage = lazy(() => import('@/pages/home'));
const ChatPage = lazy(() => import('@/pages/chat'));

/** From this width the signed-in screens are two panes side by side (tailwind's `lg`). */
export const TWO_PANES = '(min-width: 1024px)';

const PRIMARY_LEFT = { role: 'primary', side: 'left' } as const;
const SECONDARY_LEFT = { role: 'secondary', side: 'left' } as const;
const PRIMARY_RIGHT = { role: 'primary', side: 'right' } as const;
const SECONDARY_RIGHT = { role: 'secondary', side: 'right' } as const;

function Loading() {
  return (
    <div className="flex flex-1 items-center justify-center">
      <Spinner />
    </div>
  );
}

/**
 * The signed-in screens. On a phone (and up to 1023 px) one screen at a time, as routed. From
 * 1024 px, two panes, as desktop messengers draw them: on the left the chat list (on /home and
 * /chat/:id) or the screen routed there (contacts, notifications, settings and its sub-screens);
 * on the right the open conversation, or "Select a chat". The routes stay real: a deep link, a
 * reload or Back shows the same panes. While a left-pane screen is open, the chat that was open
 * stays open beside it, as in WhatsApp Web; visiting /home closes it.
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
  const fill = useFillViewport();

  if (!wide) return <Outlet />;

  const listLeft = chat !== null || home !== null;
  const mainRight = chat !== null;
  const left: ReactNode = listLeft ? <HomePage /> : <Outlet />;
  const right: ReactNode = current ? <ChatPage key={current} peerId={current} /> : <EmptyPane />;

  // The pane without the page's main landmark is a named region. Its element stays the same
  // either way, so opening a chat does not remount the list (its search, its scroll).
  const region = (secondary: boolean, label: string) =>
    secondary ? ({ role: 'region', 'aria-label': label } as const) : {};

  return (
    <div ref={fill.ref} style={fill.style} className="flex bg-background">
      <div
        ref={setScroller}
        {...region(mainRight, 'Chats')}
        className="w-[22rem] shrink-0 scroll-pt-[4.5rem] overflow-y-auto border-r border-border bg-background xl:w-[26rem]"
      >
        {/* Its screen mounts once the pane exists: a list virtualized in it needs its scroller. */}
        {scroller ? (
          <PaneScrollerContext.Provider value={scroller}>
            <PaneContext.Provider value={mainRight ? SECONDARY_LEFT : PRIMARY_LEFT}>
              <Suspense fallback={<Loading />}>{left}</Suspense>
            </PaneContext.Provider>
          </PaneScrollerContext.Provider>
        ) : null}
      </div>
      <div {...region(!mainRight, 'Conversation')} className="flex min-w-0 flex-1 flex-col">
        <PaneContext.Provider value={mainRight ? PRIMARY_RIGHT : SECONDARY_RIGHT}>
          <Suspense fallback={<Loading />}>{right}</Suspense>
        </PaneContext.Provider>
      </div>
    </div>
  );
}

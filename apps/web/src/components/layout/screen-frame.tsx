import type * as React from 'react';
import { cn } from '@/lib/utils';
import { usePane } from './pane-context';

/**
 * The frame of a screen: full width on a phone, a centred card on a wide window, and edge to
 * edge when it is a pane of the desktop layout.
 */
export function ScreenFrame({ children, className }: { children: React.ReactNode; className?: string }) {
  const pane = usePane();
  // The same two boxes either way: a window resized across the two-pane width keeps the screen.
  return (
    <div className={cn('flex min-h-full flex-col', pane ? 'bg-background' : 'bg-muted md:py-8')}>
      <div
        className={cn(
          'flex flex-1 flex-col bg-background',
          !pane && 'mx-auto w-full max-w-2xl md:rounded-2xl md:border md:border-border md:shadow-sm',
          className,
        )}
      >
        {children}
      </div>
    </div>
  );
}

/** The rounded top of a card's sticky header: only when the screen is drawn as a card. */
export function useCardTop(): string {
  return usePane() ? '' : 'md:rounded-t-2xl';
}

/**
 * A screen's main content: `<main>`, except in the secondary pane of the desktop layout, where
 * the other pane holds the page's one main landmark.
 */
export function ScreenMain(props: React.HTMLAttributes<HTMLElement>) {
  const pane = usePane();
  if (pane?.role === 'secondary') return <div {...props} />;
  return <main {...props} />;
}

/**
 * What a screen's header is in its pane. Beside the page's main screen (the secondary pane of
 * the desktop layout) its `<header>` is no banner landmark (a page has one, at the top level)
 * and its title is an h2 (the page's h1 is the main screen's).
 */
export function usePaneHeader(): { role: 'none' | undefined; Heading: 'h1' | 'h2' } {
  const secondary = usePane()?.role === 'secondary';
  return secondary ? { role: 'none', Heading: 'h2' } : { role: undefined, Heading: 'h1' };
}

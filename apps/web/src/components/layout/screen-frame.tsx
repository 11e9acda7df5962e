import type * as React from 'react';
import { cn } from '@/lib/utils';
import { usePane } from './pane-context';

/**
 * The frame of a screen: full width on a phone, a centred card on a wide window, and edge to
 * edge when it is a pane of the desktop layout.
 */
export function ScreenFrame({ children, className }: { children: React.ReactNode; className?: string }) {
  const pane = usePane();
  if (pane) return <div className={cn('flex min-h-full flex-col bg-background', className)}>{children}</div>;
  return (
    <div className="flex min-h-full flex-col bg-muted md:py-8">
      <div
        className={cn(
          'mx-auto flex w-full max-w-2xl flex-1 flex-col bg-background md:rounded-2xl md:border md:border-border md:shadow-sm',
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

import { createContext, useContext } from 'react';

/**
 * Where a screen is drawn. `null`: alone (a phone, or a screen outside the two-pane layout),
 * in the centred card of a wide window. `primary`: a pane of the desktop layout holding the
 * page's main landmark. `secondary`: the other pane, a named region beside it, whose screen
 * must not draw a second `<main>`.
 */
export type Pane = null | { role: 'primary' | 'secondary'; side: 'left' | 'right' };

export const PaneContext = createContext<Pane>(null);

export function usePane(): Pane {
  return useContext(PaneContext);
}

/** The scroll container of the left pane (null: the window scrolls, as on a phone). */
export const PaneScrollerContext = createContext<HTMLElement | null>(null);

export function usePaneScroller(): HTMLElement | null {
  return useContext(PaneScrollerContext);
}

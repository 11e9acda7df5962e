import {
  elementScroll,
  observeElementOffset,
  observeElementRect,
  observeWindowOffset,
  observeWindowRect,
  useVirtualizer,
  type Virtualizer,
  windowScroll,
} from '@tanstack/react-virtual';
import { type RefObject, useLayoutEffect, useState } from 'react';
import { usePaneScroller } from '@/components/layout/pane-context';

/**
 * A virtualizer for a list that scrolls with its screen: with the window on a phone, or with the
 * left pane of the desktop layout (a screen never moves between the two while mounted: the layout
 * remounts its screens when it switches). `listRef` is the list, `headerRef` what sits above it
 * and may change height; the list's offset in its scroller is kept as the scroll margin.
 */
export function useScrollerVirtualizer<TItem extends Element>(options: {
  count: number;
  estimateSize(index: number): number;
  overscan: number;
  getItemKey(index: number): string | number;
  listRef: RefObject<HTMLElement | null>;
  headerRef: RefObject<HTMLElement | null>;
}): Virtualizer<Element | Window, TItem> {
  const pane = usePaneScroller();
  const { listRef, headerRef } = options;
  const [listTop, setListTop] = useState(0);
  useLayoutEffect(() => {
    const measure = () => {
      const el = listRef.current;
      if (!el) return;
      const top = el.getBoundingClientRect().top;
      setListTop(Math.round(pane ? top - pane.getBoundingClientRect().top + pane.scrollTop : top + window.scrollY));
    };
    measure();
    const header = headerRef.current;
    const observer = new ResizeObserver(measure);
    if (header) observer.observe(header);
    window.addEventListener('resize', measure);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', measure);
    };
  }, [pane, listRef, headerRef]);

  const scroller = pane
    ? { getScrollElement: () => pane, observeElementRect, observeElementOffset, scrollToFn: elementScroll }
    : {
        getScrollElement: () => window,
        observeElementRect: observeWindowRect,
        observeElementOffset: observeWindowOffset,
        scrollToFn: windowScroll,
        initialOffset: () => window.scrollY,
      };
  // The window's observers are typed for a Window scroller, the element's for an Element one.
  return useVirtualizer<Element, TItem>({
    count: options.count,
    estimateSize: options.estimateSize,
    overscan: options.overscan,
    getItemKey: options.getItemKey,
    scrollMargin: listTop,
    ...(scroller as unknown as { getScrollElement: () => Element }),
  }) as Virtualizer<Element | Window, TItem>;
}

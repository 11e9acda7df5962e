import type * as React from 'react';
import { useEffect, useMemo, useRef } from 'react';
import { LongPress, type PressPoint } from './long-press';

export type { PressPoint };

interface Callbacks {
  onLongPress: (at: PressPoint) => void;
  onContextMenu?: (e: React.MouseEvent<HTMLElement>) => void;
}

/** The element's pointer handlers around one LongPress; `end` drops a press in progress. */
function pressHandlers(latest: { readonly current: Callbacks }) {
  const press = new LongPress((at) => latest.current.onLongPress(at));
  // A scroll anywhere (the conversation's own scroller too) is not a press.
  function end() {
    press.cancel();
    window.removeEventListener('scroll', end, { capture: true });
  }
  const handlers = {
    onPointerDown(e: React.PointerEvent<HTMLElement>) {
      press.reset();
      end();
      if (e.pointerType === 'mouse' || !e.isPrimary) return;
      press.start({ x: e.clientX, y: e.clientY });
      window.addEventListener('scroll', end, { capture: true, passive: true });
    },
    onPointerMove(e: React.PointerEvent<HTMLElement>) {
      if (e.pointerType !== 'mouse') press.move({ x: e.clientX, y: e.clientY });
    },
    onPointerUp: end,
    onTouchEnd(e: React.TouchEvent<HTMLElement>) {
      // No tap after a long press: no mouse events for it (which would move focus out of the menu), no click.
      if (press.hasFired) e.preventDefault();
    },
    onPointerCancel: end,
    onClickCapture(e: React.MouseEvent<HTMLElement>) {
      if (!press.takeClick()) return;
      // The finger lifted after the menu opened: that is no click (nor a link's navigation).
      e.preventDefault();
      e.stopPropagation();
    },
    onContextMenu(e: React.MouseEvent<HTMLElement>) {
      if (press.contextMenu() === 'press') {
        e.preventDefault();
        end();
        return;
      }
      latest.current.onContextMenu?.(e);
    },
  };
  return { handlers, end };
}

/**
 * A long press (~500 ms) of a finger or pen on an element (long-press.ts has the rules):
 * spread the returned handlers on it. A mouse never long-presses. `onContextMenu` is
 * called for a context menu that is not the press's (a right-click), so the element can
 * open its menu at the pointer too. Scrolling anything drops a press in progress.
 */
export function useLongPress(
  onLongPress: Callbacks['onLongPress'],
  onContextMenu?: Callbacks['onContextMenu'],
): ReturnType<typeof pressHandlers>['handlers'] {
  const latest = useRef<Callbacks>({ onLongPress, onContextMenu });
  useEffect(() => {
    latest.current = { onLongPress, onContextMenu };
  });
  const { handlers, end } = useMemo(() => pressHandlers(latest), []);
  useEffect(() => end, [end]);
  return handlers;
}

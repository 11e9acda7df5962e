import type { LucideIcon } from 'lucide-react';
import type * as React from 'react';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { cn } from '@/lib/utils';

export interface MenuAction {
  label: string;
  icon: LucideIcon;
  onSelect: () => void;
  destructive?: boolean;
}

/** Where a menu opens: at the pointer (right-click) or under its button; focus returns to `returnFocus`. */
export interface MenuAnchor {
  x: number;
  y: number;
  returnFocus: HTMLElement | null;
  /** 'end': the menu's right edge at x (under a button at the end of a row). */
  align?: 'start' | 'end';
  /** The top of what the menu opens under (y is its bottom): with no room below, the menu opens above that. */
  top?: number;
}

/** Opens a menu at a right-click, or under the button that was pressed. */
export function useMenuAnchor() {
  const [anchor, setAnchor] = useState<MenuAnchor | null>(null);
  const openAtPointer = useCallback((e: React.MouseEvent<HTMLElement>) => {
    e.preventDefault();
    setAnchor({ x: e.clientX, y: e.clientY, returnFocus: e.currentTarget });
  }, []);
  const openFromButton = useCallback((e: React.MouseEvent<HTMLElement>) => {
    setAnchor(anchorOf(e.currentTarget));
  }, []);
  const close = useCallback(() => setAnchor(null), []);
  return { anchor, setAnchor, openAtPointer, openFromButton, close };
}

/** An anchor under (or, near the bottom, above) an element. */
export function anchorOf(el: HTMLElement): MenuAnchor {
  const r = el.getBoundingClientRect();
  return { x: r.right, y: r.bottom + 4, returnFocus: el, align: 'end' };
}

/**
 * Where a popup at `anchor` goes to stay inside the viewport (null until measured: render
 * it hidden at the anchor meanwhile). Opens above what it is anchored to when there is no
 * room below. A new anchor object measures again (the popup's content grew).
 */
export function usePopupPosition(
  anchor: MenuAnchor | null,
  ref: React.RefObject<HTMLElement | null>,
): { left: number; top: number } | null {
  const [pos, setPos] = useState<{ left: number; top: number } | null>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!anchor || !el) {
      setPos(null);
      return;
    }
    const { width, height } = el.getBoundingClientRect();
    const margin = 8;
    let left = anchor.align === 'end' ? anchor.x - width : anchor.x;
    if (left + width > window.innerWidth - margin) left = anchor.x - width;
    left = Math.max(margin, left);
    let top = anchor.y;
    if (top + height > window.innerHeight - margin) top = Math.max(margin, (anchor.top ?? anchor.y) - height - 8);
    setPos({ left, top });
  }, [anchor, ref]);
  return pos;
}

/**
 * A small menu of actions in a portal: arrow keys move, Enter selects, Escape or a
 * click elsewhere closes it, and focus goes back where it came from.
 */
export function ActionMenu({
  anchor,
  actions,
  label,
  onClose,
}: {
  anchor: MenuAnchor | null;
  actions: readonly MenuAction[];
  label: string;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const pos = usePopupPosition(anchor, ref);

  // Focus the first item once the menu is placed: while it is still hidden it cannot take focus.
  useEffect(() => {
    if (pos) ref.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
  }, [pos]);

  const close = useCallback(
    (restoreFocus: boolean) => {
      const target = anchor?.returnFocus;
      onClose();
      if (restoreFocus && target?.isConnected) target.focus();
    },
    [anchor, onClose],
  );

  useEffect(() => {
    if (!anchor) return;
    const onPointer = (e: PointerEvent) => {
      if (!ref.current?.contains(e.target as Node)) close(false);
    };
    const onScroll = (e: Event) => {
      if (!ref.current?.contains(e.target as Node)) close(false);
    };
    const onResize = () => close(false);
    document.addEventListener('pointerdown', onPointer, true);
    window.addEventListener('scroll', onScroll, true);
    window.addEventListener('resize', onResize);
    return () => {
      document.removeEventListener('pointerdown', onPointer, true);
      window.removeEventListener('scroll', onScroll, true);
      window.removeEventListener('resize', onResize);
    };
  }, [anchor, close]);

  if (!anchor) return null;

  const onKeyDown = (e: React.KeyboardEvent<HTMLDivElement>) => {
    const items = [...(ref.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    const move = (i: number) => items[(i + items.length) % items.length]?.focus();
    switch (e.key) {
      case 'ArrowDown':
        e.preventDefault();
        move(at + 1);
        break;
      case 'ArrowUp':
        e.preventDefault();
        move(at - 1);
        break;
      case 'Home':
        e.preventDefault();
        move(0);
        break;
      case 'End':
        e.preventDefault();
        move(items.length - 1);
        break;
      case 'Escape':
        e.preventDefault();
        e.stopPropagation();
        close(true);
        break;
      case 'Tab':
        e.preventDefault();
        close(true);
        break;
    }
  };

  return createPortal(
    <div
      ref={ref}
      role="menu"
      aria-label={label}
      tabIndex={-1}
      onKeyDown={onKeyDown}
      onContextMenu={(e) => e.preventDefault()}
      className="fixed z-50 min-w-40 overflow-hidden rounded-xl border border-border bg-background p-1 shadow-lg"
      style={pos ? { left: pos.left, top: pos.top } : { left: anchor.x, top: anchor.y, visibility: 'hidden' }}
    >
      {actions.map(({ label: text, icon: Icon, onSelect, destructive }) => (
        <button
          key={text}
          type="button"
          role="menuitem"
          tabIndex={-1}
          className={cn(
            'flex w-full cursor-pointer items-center gap-2.5 rounded-lg px-3 py-2 text-left text-sm outline-none pointer-coarse:min-h-11 hover:bg-accent focus-visible:bg-accent focus:bg-accent',
            destructive && 'text-destructive',
          )}
          onClick={() => {
            close(true);
            onSelect();
          }}
        >
          <Icon className="size-4 shrink-0" aria-hidden />
          {text}
        </button>
      ))}
    </div>,
    // Inside the trigger's landmark (the screen's <main>), so the menu is not content outside every landmark.
    anchor.returnFocus?.closest('main') ?? document.body,
  );
}

/**
 * Focus on every screen change: once the new screen is drawn, focus goes to what it marks
 * for it (`[data-autofocus]` in its main part: the composer of a chat), or else to its page
 * heading (made focusable from script only: tabindex -1, no ring, index.css), so keyboard
 * and screen-reader users start on the new screen instead of the page's body.
 *
 * It leaves focus alone when the new screen has taken it already (a field it focuses
 * itself, like the search or a PIN), and until the user has pressed a key or clicked (the
 * redirects of a first load do not move focus).
 */
import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router';

/** Frames to wait for a lazily loaded screen to draw its target. */
const MAX_FRAMES = 120;
/** Frames to wait for a preferred target before the usual ones do. */
const PREFERRED_FRAMES = 30;

let preferred: string | null = null;

/** After the next screen change, focus the element matching `selector` if it shows up (e.g. the chat row just left). */
export function focusAfterNavigation(selector: string): void {
  preferred = selector;
}

/**
 * Going back from `pathname`: on the screen left for, focus the link to it (the chat row,
 * the Settings row the user came from), else what that screen would focus anyway.
 */
export function focusLinkBackTo(pathname: string): void {
  focusAfterNavigation(`a[href="${pathname.replace(/["\\]/g, '\\$&')}"]`);
}

function shown(el: HTMLElement): boolean {
  return el.isConnected && el.getClientRects().length > 0 && !el.hasAttribute('disabled');
}

function first(selector: string): HTMLElement | null {
  for (const el of document.querySelectorAll<HTMLElement>(selector)) if (shown(el)) return el;
  return null;
}

/** The page heading of the screen holding the page's main part (the other pane has its own), or the first one. */
function heading(): HTMLElement | null {
  for (let n: HTMLElement | null = document.querySelector('main'); n; n = n.parentElement) {
    const h = n.querySelector<HTMLElement>('h1');
    if (h && shown(h)) return h;
  }
  return first('h1');
}

/** The element a new screen's focus goes to, or null while it is not drawn yet (still loading). */
function routeTarget(frame: number, wanted: string | null): HTMLElement | null {
  if (wanted) {
    const el = first(wanted);
    if (el || frame < PREFERRED_FRAMES) return el;
  }
  const marked = first('main [data-autofocus]');
  if (marked) return marked;
  // A screen (or its chunk) still loading may yet draw what it marks.
  if (frame < MAX_FRAMES - 1 && first('[aria-label="Loading"]')) return null;
  return heading();
}

/** Focuses `el`; a heading or landmark is made focusable from script only, without a ring. */
export function focusTarget(el: HTMLElement): void {
  if (el.tabIndex < 0 && !el.hasAttribute('tabindex')) {
    // A heading: focusable from script only, without the keyboard ring (it is not a control).
    el.setAttribute('tabindex', '-1');
    el.setAttribute('data-route-focus', '');
  }
  el.focus({ preventScroll: true });
}

export function useRouteFocus(): void {
  const { key } = useLocation();
  const interacted = useRef(false);
  // What the user last acted on (the link clicked, the field a shortcut was pressed in).
  const actedOn = useRef<Element | null>(null);

  useEffect(() => {
    const onInput = (e: Event) => {
      interacted.current = true;
      if (e.type !== 'pointerdown') actedOn.current = document.activeElement;
    };
    for (const type of ['keydown', 'pointerdown', 'click']) document.addEventListener(type, onInput, true);
    return () => {
      for (const type of ['keydown', 'pointerdown', 'click']) document.removeEventListener(type, onInput, true);
    };
  }, []);

  const firstKey = useRef(key);
  useEffect(() => {
    if (key === firstKey.current || !interacted.current) {
      preferred = null;
      return;
    }
    const wanted = preferred;
    preferred = null;
    const before = actedOn.current;
    let frame = 0;
    let raf = 0;
    const attempt = () => {
      const active = document.activeElement;
      // The new screen focused something of its own (not what the user acted on): leave it.
      if (active && active !== document.body && active !== before && active.isConnected) return;
      const target = routeTarget(frame, wanted);
      if (target) {
        focusTarget(target);
        return;
      }
      if (++frame < MAX_FRAMES) raf = requestAnimationFrame(attempt);
    };
    raf = requestAnimationFrame(attempt);
    return () => cancelAnimationFrame(raf);
  }, [key]);
}

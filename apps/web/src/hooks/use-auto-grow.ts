import { type RefObject, useEffect, useLayoutEffect } from 'react';

/** Grows `el` with its text up to `maxLines` lines; past that it scrolls. */
function fitHeight(el: HTMLTextAreaElement, maxLines: number): void {
  const cs = getComputedStyle(el);
  const px = (v: string) => Number.parseFloat(v) || 0;
  const frame = px(cs.borderTopWidth) + px(cs.borderBottomWidth);
  const padding = px(cs.paddingTop) + px(cs.paddingBottom);
  const max = px(cs.lineHeight) * maxLines + padding + frame;
  el.style.height = 'auto';
  const wanted = el.scrollHeight + frame;
  el.style.height = `${Math.min(wanted, max)}px`;
  el.style.overflowY = wanted > max ? 'auto' : 'hidden';
}

/**
 * A text area as tall as its text (`value`), up to `maxLines` lines, refitted whenever its
 * width changes. (Refitting on the window's resize alone measured it mid-layout when the
 * desktop layout turned into the phone's: it stayed six lines tall, empty.)
 */
export function useAutoGrow(ref: RefObject<HTMLTextAreaElement | null>, value: string, maxLines: number): void {
  // biome-ignore lint/correctness/useExhaustiveDependencies: the height follows the text the area shows
  useLayoutEffect(() => {
    if (ref.current) fitHeight(ref.current, maxLines);
  }, [ref, value, maxLines]);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    let width = el.clientWidth;
    // Only a new width: the height it sets itself is not a reason to measure again.
    const observer = new ResizeObserver(() => {
      if (el.clientWidth === width) return;
      width = el.clientWidth;
      fitHeight(el, maxLines);
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref, maxLines]);
}

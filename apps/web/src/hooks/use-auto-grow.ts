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

/** A text area as tall as its text (`value`), up to `maxLines` lines, refitted when the window resizes. */
export function useAutoGrow(ref: RefObject<HTMLTextAreaElement | null>, value: string, maxLines: number): void {
  // biome-ignore lint/correctness/useExhaustiveDependencies: the height follows the text the area shows
  useLayoutEffect(() => {
    if (ref.current) fitHeight(ref.current, maxLines);
  }, [ref, value, maxLines]);
  useEffect(() => {
    const refit = () => ref.current && fitHeight(ref.current, maxLines);
    window.addEventListener('resize', refit);
    return () => window.removeEventListener('resize', refit);
  }, [ref, maxLines]);
}

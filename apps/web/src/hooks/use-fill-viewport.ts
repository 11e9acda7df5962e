import { useLayoutEffect, useRef, useState } from 'react';

/**
 * The screen fills the viewport below whatever sits above it (the e-mail banner), while
 * `active` (the caller applies the style). Measuring forces a layout inside React's commit,
 * so an inactive screen does not measure (a phone's chat list: 20% of its first long task).
 */
export function useFillViewport(active: boolean) {
  const ref = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  useLayoutEffect(() => {
    if (!active) return;
    const measure = () => {
      const el = ref.current;
      if (el) setTop(Math.max(0, Math.round(el.getBoundingClientRect().top + window.scrollY)));
    };
    measure();
    window.addEventListener('resize', measure);
    return () => window.removeEventListener('resize', measure);
  }, [active]);
  return { ref, style: { height: `calc(100dvh - ${top}px)`, flex: 'none' } as const };
}

import { useLayoutEffect, useRef, useState } from 'react';

/** The screen fills the viewport below whatever sits above it (the e-mail banner). */
export function useFillViewport() {
  const ref = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  useLayoutEffect(() => {
    const measure = () => {
      const el = ref.current;
      if (el) setTop(Math.max(0, Math.round(el.getBoundingClientRect().top + window.scrollY)));
    };
    measure();
    window.addEventListener('resize', measure);
    return () => window.removeEventListener('resize', measure);
  }, []);
  return { ref, style: { height: `calc(100dvh - ${top}px)`, flex: 'none' } as const };
}

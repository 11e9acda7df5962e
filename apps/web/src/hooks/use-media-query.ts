import { useCallback, useSyncExternalStore } from 'react';

function media(query: string): MediaQueryList | null {
  return typeof window === 'undefined' ? null : (window.matchMedia?.(query) ?? null);
}

/** Whether a CSS media query matches: live, as the window is resized or a tablet docks. */
export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (listener: () => void) => {
      const m = media(query);
      m?.addEventListener('change', listener);
      return () => m?.removeEventListener('change', listener);
    },
    [query],
  );
  return useSyncExternalStore(
    subscribe,
    () => media(query)?.matches ?? false,
    () => false,
  );
}

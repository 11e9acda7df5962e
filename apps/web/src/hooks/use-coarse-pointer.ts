import { useSyncExternalStore } from 'react';

const QUERY = '(pointer: coarse)';

function media(): MediaQueryList | null {
  return typeof window === 'undefined' ? null : (window.matchMedia?.(QUERY) ?? null);
}

function subscribe(listener: () => void): () => void {
  const m = media();
  m?.addEventListener('change', listener);
  return () => m?.removeEventListener('change', listener);
}

const get = () => media()?.matches ?? false;

/** Whether the main pointer is a finger (a touch screen): live, as a tablet docks or undocks. */
export function useCoarsePointer(): boolean {
  return useSyncExternalStore(subscribe, get, () => false);
}

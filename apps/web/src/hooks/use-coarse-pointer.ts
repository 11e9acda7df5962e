import { useMediaQuery } from './use-media-query';

/** Whether the main pointer is a finger (a touch screen): live, as a tablet docks or undocks. */
export function useCoarsePointer(): boolean {
  return useMediaQuery('(pointer: coarse)');
}

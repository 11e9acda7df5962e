/**
 * Ctrl/Cmd+K asks the chat list's header to open its search: a request waits here until
 * a header takes it (one on screen at once, or the next to mount, after the keyboard host
 * has gone to /home on a narrow screen).
 */
type Listener = () => void;

let pending = false;
const listeners = new Set<Listener>();

/** Asks for the chat search; whether a header is on screen to open it now. */
export function requestSearch(): boolean {
  pending = true;
  for (const l of listeners) l();
  return listeners.size > 0;
}

/** Whether a header that can open the search is on screen. */
export function searchShown(): boolean {
  return listeners.size > 0;
}

/** Takes the waiting request, if any (the first taker gets it). */
export function takeSearchRequest(): boolean {
  const was = pending;
  pending = false;
  return was;
}

/** A header on screen: `onRequest` runs on each request (and take it with takeSearchRequest). */
export function onSearchRequest(onRequest: Listener): () => void {
  listeners.add(onRequest);
  return () => {
    listeners.delete(onRequest);
  };
}

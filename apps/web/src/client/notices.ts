/**
 * What the chat client tells the user, as what happened: the client reports it
 * (ClientEvents.notice), the UI chooses the words and how to show them (client-notices.ts
 * there: a toast). The app's client (chat-client-singleton.ts) tells its notices here,
 * where the UI listens (app.tsx); this module is tiny, so the first screens listen
 * without carrying the chat code.
 */
import type { WsErrorCode } from '@app/protocol';

export type ClientNotice =
  /** The server sent an error that answers no request of this client. */
  | { kind: 'server-error'; code: WsErrorCode; message: string }
  /** The peer takes messages from contacts only: a message went to them as a contact request. */
  | { kind: 'request-sent'; peerId: string; username: string | null }
  /** A message failed (refused for good, or too many failed attempts): `reason` is why, in the server's words. */
  | { kind: 'message-not-sent'; reason: string };

const listeners = new Set<(notice: ClientNotice) => void>();

/** Listens to what the app's chat client tells the user; returns the function that stops. */
export function onClientNotice(listener: (notice: ClientNotice) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Tells every listener (the app's client does, chat-client-singleton.ts). */
export function tellClientNotice(notice: ClientNotice): void {
  for (const l of [...listeners]) l(notice);
}

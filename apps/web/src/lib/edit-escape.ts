/**
 * The composer's edit mode, for Escape pressed anywhere in the chat: after the menu and
 * the dialogs, before closing the chat, Escape leaves edit mode (keyboard-host.tsx).
 */
let cancel: (() => void) | null = null;

/** The composer in edit mode registers how to leave it; the returned function unregisters. */
export function registerEditCancel(fn: () => void): () => void {
  cancel = fn;
  return () => {
    if (cancel === fn) cancel = null;
  };
}

/** Leaves edit mode if the composer is in it; whether it was. */
export function cancelEdit(): boolean {
  if (!cancel) return false;
  const fn = cancel;
  cancel = null;
  fn();
  return true;
}

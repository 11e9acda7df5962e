/**
 * Arrow keys in /home's chat list (home-chat-list.tsx): from the search, Enter opens the
 * first chat found and ↓ goes to it; on a row, ↓/↑ go to the next/previous row, and ↑ from
 * the first row back to the search when it is open.
 */
interface ListKey {
  key: string;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  target: EventTarget | null;
  preventDefault(): void;
}

const plain = (e: ListKey, composing: boolean) => !e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey && !composing;

/** The chat list's row links, in order. */
function chatLinks(): HTMLAnchorElement[] {
  return [...document.querySelectorAll<HTMLAnchorElement>('ul[aria-label="Chats"] a[href^="/chat/"]')];
}

/** A key in the search field (`composing`: an input method's); whether it was taken. */
export function searchFieldKey(e: ListKey, composing: boolean): boolean {
  if (!plain(e, composing) || (e.key !== 'Enter' && e.key !== 'ArrowDown')) return false;
  const first = chatLinks()[0];
  if (!first) return false;
  e.preventDefault();
  if (e.key === 'Enter') first.click();
  else first.focus();
  return true;
}

/** A key on a chat row; whether it was taken. */
export function chatRowKey(e: ListKey): boolean {
  if (!plain(e, false) || (e.key !== 'ArrowDown' && e.key !== 'ArrowUp')) return false;
  const links = chatLinks();
  const at = links.indexOf(e.target as HTMLAnchorElement);
  if (at < 0) return false;
  const next = links[at + (e.key === 'ArrowDown' ? 1 : -1)];
  const search = e.key === 'ArrowUp' ? document.querySelector<HTMLInputElement>('#chat-search input') : null;
  if (!next && !search) return false;
  e.preventDefault();
  (next ?? search)?.focus();
  return true;
}

/**
 * The app's keyboard shortcuts (lib/shortcuts.ts) and focus on screen changes
 * (use-route-focus.ts), mounted once beside the routes:
 * - Ctrl/Cmd+K opens the chat search (going to /home first where the list is not on screen);
 * - Alt+↑/↓ opens the previous/next chat of the list (neither archived nor locked);
 * - Escape, when no menu, dialog or field took it: leaves the composer's edit mode, then
 *   closes the chat (to /home, focus on its row) if focus is on the screen;
 * - Page Up/Down scroll the conversation wherever focus is on the chat screen;
 * - ? (outside text fields) shows the "Keyboard shortcuts" dialog.
 * The chat code and the dialog are loaded when first needed: the first screens stay small.
 */
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { focusAfterNavigation, useRouteFocus } from '@/hooks/use-route-focus';
import { cancelEdit } from '@/lib/edit-escape';
import { requestSearch, searchShown } from '@/lib/search-request';
import { isMacPlatform, isTextField, neighbourChat, type Shortcut, shortcutOf } from '@/lib/shortcuts';
import { chatRowKey } from './chat-list-keys';

const ShortcutsDialog = lazy(() => import('./shortcuts-dialog'));

/** The screens of a signed-in user, where the chat shortcuts apply. */
const SIGNED_IN =
  /^\/(home|chat|contacts|settings|account|profile|privacy-settings|sessions|archive|locked|notifications)(\/|$)/;
/** The conversation's scroller (message-list.tsx). */
const HISTORY = '[data-history-scroller]';

function openChatOf(pathname: string): string | null {
  const m = /^\/chat\/([^/]+)/.exec(pathname);
  return m?.[1] ? decodeURIComponent(m[1]) : null;
}

/** Whether focus is in a menu or a dialog (they handle their keys themselves). */
function inLayer(el: Element | null): boolean {
  return el?.closest('[role="menu"], [role="dialog"], [role="alertdialog"]') != null;
}

/** The ids of the chats of /home's list, in its order. */
async function chatOrder(): Promise<string[]> {
  const { getChatClient } = await import('@/client/chat-client-singleton');
  const chats = getChatClient()?.getChatList().chats ?? [];
  return chats.filter((c) => !c.archived && !c.locked).map((c) => c.peerId);
}

type Go = (to: string) => void;

/** Alt+↑/↓: the chat above or below the open one in the list. */
function moveChat(step: 1 | -1, pathname: () => string, go: () => Go): void {
  void chatOrder().then((order) => {
    const next = neighbourChat(order, openChatOf(pathname()), step);
    if (next) go()(`/chat/${next}`);
  });
}

/**
 * Escape nobody took: out of edit mode, else out of the chat (focus then on its row of the
 * list), while focus is on the screen (not after it fell to the page's body, as when a menu
 * closes because the window was resized: the Escape meant for it does not close the chat).
 */
function closeOnEscape(path: string, go: Go, active: Element | null): boolean {
  if (cancelEdit()) return true;
  const peer = openChatOf(path);
  if (!peer || !active || active === document.body) return false;
  focusAfterNavigation(`a[href="/chat/${CSS.escape(peer)}"]`);
  go('/home');
  return true;
}

/** Page Up/Down with focus outside the conversation: scroll it all the same. */
function pageHistory(up: boolean, active: Element | null): boolean {
  const scroller = document.querySelector<HTMLElement>(HISTORY);
  if (!scroller || scroller.contains(active)) return false;
  const by = Math.max(40, scroller.clientHeight * 0.85);
  scroller.scrollBy({ top: up ? -by : by, behavior: 'smooth' });
  return true;
}

interface Where {
  path(): string;
  go(): Go;
  showHelp(): void;
}

/** Does what a shortcut does; whether it applied here. */
function act(shortcut: Shortcut, active: Element | null, { path, go, showHelp }: Where): boolean {
  // Menus and dialogs handle their own keys (none are open for the others).
  if (inLayer(active)) return false;
  switch (shortcut) {
    case 'help':
      showHelp();
      return true;
    case 'escape':
      return closeOnEscape(path(), go(), active);
    case 'page-up':
    case 'page-down':
      return pageHistory(shortcut === 'page-up', active);
  }
  if (!SIGNED_IN.test(path())) return false;
  if (shortcut === 'search') {
    if (!searchShown()) go()('/home');
    requestSearch();
  } else moveChat(shortcut === 'next-chat' ? 1 : -1, path, go);
  return true;
}

/** The mounted host's way to open the dialog (one host, in App). */
const helpOpeners = new Set<() => void>();

/** Opens the "Keyboard shortcuts" dialog, as `?` does (Settings' row). */
export function showKeyboardShortcuts(): void {
  for (const open of helpOpeners) open();
}

export function KeyboardHost() {
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const [helpOpen, setHelpOpen] = useState(false);
  const [helpLoaded, setHelpLoaded] = useState(false);
  useRouteFocus();

  const current = useRef({ pathname, navigate });
  current.current = { pathname, navigate };

  useEffect(() => {
    const mac = isMacPlatform(navigator);
    const path = () => current.current.pathname;
    const go = () => current.current.navigate as Go;
    const showHelp = () => {
      setHelpLoaded(true);
      setHelpOpen(true);
    };
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.defaultPrevented || chatRowKey(e)) return;
      const active = document.activeElement;
      const shortcut = shortcutOf(e, { inTextField: isTextField(active as HTMLElement | null), mac });
      if (shortcut && act(shortcut, active, { path, go, showHelp })) e.preventDefault();
    };
    window.addEventListener('keydown', onKeyDown);
    helpOpeners.add(showHelp);
    return () => {
      window.removeEventListener('keydown', onKeyDown);
      helpOpeners.delete(showHelp);
    };
  }, []);

  if (!helpLoaded) return null;
  return (
    <Suspense fallback={null}>
      <ShortcutsDialog open={helpOpen} onOpenChange={setHelpOpen} />
    </Suspense>
  );
}

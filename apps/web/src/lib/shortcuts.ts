/**
 * The app's keyboard shortcuts, without a screen: which shortcut a key press is, the
 * neighbouring chat for Alt+↑/↓, and the list the "Keyboard shortcuts" dialog shows.
 * components/keyboard/keyboard-host.tsx acts on them.
 */

export type Shortcut = 'search' | 'help' | 'previous-chat' | 'next-chat' | 'escape' | 'page-up' | 'page-down';

export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
  isComposing?: boolean;
}

export interface KeyContext {
  /** Focus is in a text field (input, text area, editable element): typed characters are text. */
  inTextField: boolean;
  /** Cmd is the shortcut modifier (Apple platforms), Ctrl elsewhere. */
  mac: boolean;
}

/** The shortcut a key press is, or null (a press while an input method composes never is one). */
export function shortcutOf(e: KeyPress, ctx: KeyContext): Shortcut | null {
  if (e.isComposing) return null;
  const command = ctx.mac ? e.metaKey && !e.ctrlKey : e.ctrlKey && !e.metaKey;
  if (command && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'k') return 'search';
  const plain = !e.ctrlKey && !e.metaKey && !e.altKey;
  if (e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey) {
    if (e.key === 'ArrowUp') return 'previous-chat';
    if (e.key === 'ArrowDown') return 'next-chat';
  }
  // '?' is Shift+/ on most layouts: the shift key is allowed.
  if (e.key === '?' && !e.ctrlKey && !e.metaKey && !e.altKey && !ctx.inTextField) return 'help';
  if (!plain || e.shiftKey) return null;
  if (e.key === 'Escape') return 'escape';
  if (e.key === 'PageUp') return 'page-up';
  if (e.key === 'PageDown') return 'page-down';
  return null;
}

/** Whether an element takes typed text (so '?' is a character there, not the help). */
export function isTextField(el: { tagName: string; type?: string; isContentEditable?: boolean } | null): boolean {
  if (!el) return false;
  if (el.isContentEditable) return true;
  const tag = el.tagName.toUpperCase();
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag !== 'INPUT') return false;
  const NOT_TEXT = ['button', 'checkbox', 'radio', 'submit', 'reset', 'range', 'color', 'file', 'image', 'hidden'];
  return !NOT_TEXT.includes((el.type ?? 'text').toLowerCase());
}

/**
 * The chat to open for Alt+↑ (-1) or Alt+↓ (+1) from `current`, in the list's order: the
 * one above or below it, none past either end; from a screen that is not one of the list's
 * chats, ↓ opens the first and ↑ the last.
 */
export function neighbourChat(order: readonly string[], current: string | null, step: 1 | -1): string | null {
  if (order.length === 0) return null;
  const at = current === null ? -1 : order.indexOf(current);
  if (at < 0) return (step === 1 ? order[0] : order[order.length - 1]) ?? null;
  return order[at + step] ?? null;
}

export interface ShortcutHelp {
  /** The keys pressed together, each shown as a key cap. */
  keys: readonly string[];
  /** What they do. */
  does: string;
}

/** The shortcuts as the "Keyboard shortcuts" dialog lists them. */
export function shortcutList(mac: boolean): ShortcutHelp[] {
  const command = mac ? '⌘' : 'Ctrl';
  const alt = mac ? '⌥' : 'Alt';
  return [
    { keys: [command, 'K'], does: 'Search chats' },
    { keys: [alt, '↑'], does: 'Previous chat' },
    { keys: [alt, '↓'], does: 'Next chat' },
    { keys: ['↑'], does: 'Edit your last message (in an empty message box)' },
    { keys: ['Enter'], does: 'Send the message' },
    { keys: ['Shift', 'Enter'], does: 'New line in the message' },
    { keys: ['Page Up'], does: 'Scroll the conversation up' },
    { keys: ['Page Down'], does: 'Scroll the conversation down' },
    { keys: ['Esc'], does: 'Close the menu or dialog, stop editing, then close the chat' },
    { keys: ['?'], does: 'Show these shortcuts' },
  ];
}

/** Whether this browser runs on an Apple platform (Cmd rather than Ctrl). */
export function isMacPlatform(nav: { platform?: string; userAgent?: string } | undefined): boolean {
  if (!nav) return false;
  return /Mac|iPhone|iPad|iPod/i.test(nav.platform || nav.userAgent || '');
}

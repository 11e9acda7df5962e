/** The composer's rules that need no screen: what Enter and ↑ do, and the length counter. */
import { MESSAGE_MAX } from '@app/protocol';
import type { UiMessage } from '@/client/conversations/conversation';

/** From this many characters on, the composer shows how many are left of MESSAGE_MAX. */
export const COUNTER_FROM = 3500;

/** Lines the composer grows to before it scrolls. */
export const COMPOSER_MAX_LINES = 6;

/**
 * Whether a key press in the composer sends: Enter alone does with a keyboard (Shift+Enter
 * is a new line); on a touch screen (coarse pointer) Enter is a new line and the button
 * sends. Never while an input method is composing (Enter picks the candidate).
 */
export function sendsOnKey(
  e: { key: string; shiftKey: boolean; ctrlKey?: boolean; metaKey?: boolean; altKey?: boolean; isComposing?: boolean },
  coarsePointer: boolean,
): boolean {
  if (e.key !== 'Enter' || e.isComposing) return false;
  if (e.shiftKey || e.altKey) return false;
  // Ctrl/Cmd+Enter sends even on a touch screen with a keyboard attached.
  if (e.ctrlKey || e.metaKey) return true;
  return !coarsePointer;
}

const count = (n: number) => n.toLocaleString('en-US');

/** "3,612 / 4,096" once a text is near the limit (null before), and whether it is over. */
export function lengthCounter(length: number): { text: string; over: boolean } | null {
  if (length < COUNTER_FROM) return null;
  return { text: `${count(length)} / ${count(MESSAGE_MAX)}`, over: length > MESSAGE_MAX };
}

/**
 * Whether a key press in the composer edits the user's last message: ↑ alone, in an empty
 * composer that is not editing already, outside an input method's composition.
 */
export function editsLastOnKey(
  e: { key: string; shiftKey: boolean; ctrlKey: boolean; metaKey: boolean; altKey: boolean; isComposing?: boolean },
  text: string,
  editing: boolean,
): boolean {
  if (e.key !== 'ArrowUp' || e.isComposing || editing || text !== '') return false;
  return !e.shiftKey && !e.ctrlKey && !e.metaKey && !e.altKey;
}

/** Whether the menu offers Edit for a message: the user's own, on the server, not deleted. */
export function canEdit(m: UiMessage, myId: string | undefined): boolean {
  return myId !== undefined && m.senderId === myId && !m.pending && m.failed === undefined && !m.deleted;
}

/** The newest message the user can edit (↑ in an empty composer), or null. */
export function lastEditable(messages: readonly UiMessage[], myId: string | undefined): UiMessage | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m && canEdit(m, myId)) return m;
  }
  return null;
}

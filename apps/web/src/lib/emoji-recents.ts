/**
 * The emoji this browser picked last, newest first, for the picker's "Recently used" row:
 * kept in localStorage per user (RECENT_MAX of them), wiped with the rest at sign-out.
 * What is read back is checked: anything but a short list of short strings is dropped.
 */

export const RECENT_MAX = 16;
const KEY = 'parley-emoji-recent';

function keyOf(userId: string): string {
  return `${KEY}:${userId}`;
}

export function recentEmoji(userId: string, storage: Storage = localStorage): string[] {
  try {
    const raw: unknown = JSON.parse(storage.getItem(keyOf(userId)) ?? '[]');
    if (!Array.isArray(raw)) return [];
    return raw.filter((e): e is string => typeof e === 'string' && e.length > 0 && e.length <= 32).slice(0, RECENT_MAX);
  } catch {
    return [];
  }
}

/** `emoji` was picked: first in the row (once), the oldest dropped past RECENT_MAX. */
export function noteEmoji(userId: string, emoji: string, storage: Storage = localStorage): string[] {
  const next = [emoji, ...recentEmoji(userId, storage).filter((e) => e !== emoji)].slice(0, RECENT_MAX);
  try {
    storage.setItem(keyOf(userId), JSON.stringify(next));
  } catch {
    // Storage full or refused: the row lives as long as the page.
  }
  return next;
}

/** Forgets every user's recent emoji in this browser (sign-out). */
export function wipeRecentEmoji(storage: Storage = localStorage): void {
  for (let i = storage.length - 1; i >= 0; i--) {
    const k = storage.key(i);
    if (k?.startsWith(`${KEY}:`)) storage.removeItem(k);
  }
}

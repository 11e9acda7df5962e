/**
 * Whether a message is one to three emoji and nothing else (spaces aside): such a message
 * is shown large, as messengers do. Counted by grapheme (a flag, a family, a skin tone or a
 * keycap is one emoji), with the browser's own Intl.Segmenter.
 */

/** Most emoji a message may hold to be shown large. */
export const LARGE_EMOJI_MAX = 3;

const segmenter = typeof Intl.Segmenter === 'function' ? new Intl.Segmenter('en', { granularity: 'grapheme' }) : null;
/** A pictograph, a flag's letters, or a keycap (1️⃣). */
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u;
const SPACE = /^\s+$/u;

/** How many emoji `text` is made of (1 to LARGE_EMOJI_MAX), or 0 when it is anything else. */
export function emojiOnlyCount(text: string): number {
  const t = text.trim();
  // The longest three emoji (families with skin tones) stay well under 64 UTF-16 units.
  if (!segmenter || t === '' || t.length > 64) return 0;
  let n = 0;
  for (const { segment } of segmenter.segment(t)) {
    if (SPACE.test(segment)) continue;
    if (!EMOJI.test(segment) || ++n > LARGE_EMOJI_MAX) return 0;
  }
  return n;
}

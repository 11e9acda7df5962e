import { describe, expect, it } from 'vitest';
import { emojiOnlyCount } from './emoji-only';

describe('emojiOnlyCount', () => {
  it('counts one to three emoji, each grapheme once (flags, families, skin tones, keycaps)', () => {
    expect(emojiOnlyCount('😀')).toBe(1);
    expect(emojiOnlyCount(' 👍🏽 ')).toBe(1);
    expect(emojiOnlyCount('🇫🇷🇯🇵')).toBe(2);
    expect(emojiOnlyCount('👨‍👩‍👧‍👦 ❤️ 1️⃣')).toBe(3);
  });

  it('is 0 for text, digits, four emoji or more, and nothing', () => {
    for (const t of ['hi 😀', '😀!', '123', '😀😀😀😀', '', '   ', 'ok', '#']) expect(emojiOnlyCount(t), t).toBe(0);
  });
});

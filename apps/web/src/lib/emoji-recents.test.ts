import { describe, expect, it } from 'vitest';
import { noteEmoji, RECENT_MAX, recentEmoji, wipeRecentEmoji } from './emoji-recents';

/** A Storage in memory. */
function memoryStorage(): Storage {
  const m = new Map<string, string>();
  return {
    get length() {
      return m.size;
    },
    key: (i) => [...m.keys()][i] ?? null,
    getItem: (k) => m.get(k) ?? null,
    setItem: (k, v) => void m.set(k, v),
    removeItem: (k) => void m.delete(k),
    clear: () => m.clear(),
  };
}

describe('recent emoji', () => {
  it('keeps the newest first, once each, at most RECENT_MAX, per user; sign-out wipes them', () => {
    const s = memoryStorage();
    noteEmoji('a', '😀', s);
    noteEmoji('a', '🎉', s);
    expect(noteEmoji('a', '😀', s)).toEqual(['😀', '🎉']);
    expect(recentEmoji('b', s)).toEqual([]);
    for (let i = 0; i < RECENT_MAX + 5; i++) noteEmoji('a', String.fromCodePoint(0x1f600 + i), s);
    expect(recentEmoji('a', s)).toHaveLength(RECENT_MAX);
    s.setItem('other', 'kept');
    wipeRecentEmoji(s);
    expect(recentEmoji('a', s)).toEqual([]);
    expect(s.getItem('other')).toBe('kept');
  });

  it('drops what does not read back as a list of short strings', () => {
    const s = memoryStorage();
    for (const bad of ['{', '{"a":1}', '[1,null,"😀","' + 'x'.repeat(40) + '"]']) {
      s.setItem('parley-emoji-recent:a', bad);
      expect(recentEmoji('a', s).every((e) => e === '😀')).toBe(true);
    }
  });
});

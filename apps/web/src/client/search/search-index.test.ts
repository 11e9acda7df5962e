import { describe, expect, it } from 'vitest';
import { fold, type IndexedMessage, SearchIndex, snippet } from './search-index';

const m = (chatId: string, msgId: string, timestamp: number, text: string, rev = 0): IndexedMessage => ({
  chatId,
  msgId,
  senderId: 'u1',
  timestamp,
  rev,
  text,
});

describe('the search index', () => {
  it('finds a substring regardless of case and accents, newest first, in one chat or the chats let through', () => {
    const ix = new SearchIndex();
    ix.put(m('c1', 'a', 1, 'Rendez-vous au Café'));
    ix.put(m('c1', 'b', 3, 'cafe later?'));
    ix.put(m('c2', 'c', 2, 'CAFÉ CRÈME'));
    ix.put(m('c2', 'd', 4, 'nothing here'));
    expect(ix.search('café').map((h) => h.message.msgId)).toEqual(['b', 'c', 'a']);
    expect(ix.search('CAFE', { chatId: 'c2' }).map((h) => h.message.msgId)).toEqual(['c']);
    expect(ix.search('cafe', { include: (id) => id !== 'c2' }).map((h) => h.message.msgId)).toEqual(['b', 'a']);
    expect(ix.search('   ')).toEqual([]);
    expect(ix.search('cafe', { limit: 1 })).toHaveLength(1);
    expect(fold('Ünïcödé')).toBe('unicode');
  });

  it('an edit replaces the text (an older revision does not), a deletion removes it', () => {
    const ix = new SearchIndex();
    ix.put(m('c1', 'a', 1, 'first words', 0));
    expect(ix.put(m('c1', 'a', 1, 'second words', 1))).toBe(true);
    expect(ix.put(m('c1', 'a', 1, 'first words', 0))).toBe(false);
    expect(ix.search('first')).toEqual([]);
    expect(ix.search('second')).toHaveLength(1);
    expect(ix.size).toBe(1);
    expect(ix.remove('c1', 'a')).toBe(true);
    expect(ix.search('second')).toEqual([]);
    expect(ix.size).toBe(0);
  });

  it('counts its changes, and cuts a snippet around the match', () => {
    const ix = new SearchIndex();
    ix.put(m('c1', 'b', 5, 'later'));
    ix.put(m('c1', 'a', 2, `${'x'.repeat(100)} needle ${'y'.repeat(100)}`));
    expect(ix.version).toBe(2);
    ix.put(m('c1', 'b', 5, 'later'));
    expect(ix.version).toBe(2);
    const [hit] = ix.search('NEEDLE');
    if (!hit) throw new Error('no hit');
    const s = snippet(hit, 40);
    expect(s.match).toBe('needle');
    expect(s.before.startsWith('…')).toBe(true);
    expect(s.after.endsWith('…')).toBe(true);
    expect((s.before + s.match + s.after).length).toBeLessThanOrEqual(42);
  });
});

import type { ChatMessage } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { testMessage } from '@/test/messages';
import { compareMessages, laterOf, mergeMessages, upsertMessage } from './conversation';

const msg = (id: string, timestamp: number, text = id) => testMessage(id, timestamp, { legacyText: text });

const ids = (list: readonly ChatMessage[]) => list.map((m) => m.id);

describe('message order', () => {
  it('sorts by timestamp, then id', () => {
    expect([msg('b', 1), msg('a', 2), msg('a', 1)].sort(compareMessages).map((m) => `${m.id}${m.timestamp}`)).toEqual([
      'a1',
      'b1',
      'a2',
    ]);
  });

  it('appends, inserts and replaces without mutating', () => {
    const list = [msg('a', 1), msg('c', 3)];
    const appended = upsertMessage(list, msg('d', 4), undefined);
    expect(ids(appended)).toEqual(['a', 'c', 'd']);
    expect(ids(list)).toEqual(['a', 'c']);
    const inserted = upsertMessage(appended, msg('b', 2), undefined);
    expect(ids(inserted)).toEqual(['a', 'b', 'c', 'd']);
    const old = inserted[2] as ChatMessage;
    const replaced = upsertMessage(inserted, msg('c', 3, 'edited'), old);
    expect(ids(replaced)).toEqual(['a', 'b', 'c', 'd']);
    expect(replaced[2]?.legacyText).toBe('edited');
  });

  it('merges an older page without duplicates', () => {
    const merged = mergeMessages([msg('c', 3), msg('d', 4)], [msg('a', 1), msg('b', 2), msg('c', 3, 'new')]);
    expect(ids(merged)).toEqual(['a', 'b', 'c', 'd']);
    expect(merged[2]?.legacyText).toBe('new');
  });

  it('never takes a message back to an earlier delivery state (an answer made before a receipt)', () => {
    const read = { ...msg('c', 3), status: 'read' as const, deliveredAt: 4, readAt: 5 };
    const stale = { ...msg('c', 3, 'edited'), status: 'sent' as const, edited: true, deliveredAt: null, readAt: null };
    expect(laterOf(read, stale)).toMatchObject({
      legacyText: 'edited',
      edited: true,
      status: 'read',
      deliveredAt: 4,
      readAt: 5,
    });
    expect(laterOf(stale, read)).toBe(read);
    expect(mergeMessages([read], [stale])[0]).toMatchObject({ legacyText: 'edited', status: 'read', readAt: 5 });
  });
});

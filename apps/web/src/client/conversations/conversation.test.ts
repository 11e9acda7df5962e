import type { ChatMessage } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { testMessage } from '@/test/messages';
import { compareMessages, mergeMessages, upsertMessage } from './conversation';

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
});

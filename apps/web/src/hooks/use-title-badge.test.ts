import { type ChatSummary, MUTED_ALWAYS } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { titleFor, unreadForTitle } from './use-title-badge';

function chat(unreadCount: number, over: Partial<ChatSummary> = {}): ChatSummary {
  return {
    chatId: `c${Math.random()}`,
    peerId: 'p',
    peer: null,
    last: null,
    timestamp: 1,
    unreadCount,
    archived: false,
    locked: false,
    pinnedAt: null,
    mutedUntil: null,
    markedUnread: false,
    ...over,
  };
}

describe('title badge', () => {
  it('counts unread messages of chats neither archived nor locked', () => {
    expect(unreadForTitle([])).toBe(0);
    expect(unreadForTitle([chat(2), chat(1), chat(5, { archived: true }), chat(7, { locked: true })])).toBe(3);
  });

  it('leaves out chats muted now, and counts them again once the mute ran out', () => {
    const chats = [chat(2), chat(4, { mutedUntil: 1_000 }), chat(8, { mutedUntil: MUTED_ALWAYS })];
    expect(unreadForTitle(chats, 999)).toBe(2);
    expect(unreadForTitle(chats, 1_000)).toBe(6);
  });

  it('reads "(n) Parley", capped, and "Parley" with nothing unread', () => {
    expect(titleFor(0)).toBe('Parley');
    expect(titleFor(3)).toBe('(3) Parley');
    expect(titleFor(1500)).toBe('(999+) Parley');
  });
});

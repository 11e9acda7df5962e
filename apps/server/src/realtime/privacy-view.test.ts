import type { ChatMessage, ChatSummary, Presence, Update } from '@app/protocol';
import { sampleCiphertext } from '@app/protocol/test/samples';
import { describe, expect, it } from 'vitest';
import { type PrivacyView, sharedPrivacy, viewChat, viewMessage, viewPresence, viewUpdate } from './privacy-view.ts';

const ME = 'a'.repeat(20);
const PEER = 'b'.repeat(20);
const CHAT = `${ME}_${PEER}`;
const OPEN = { readReceipts: true, lastSeen: true, requireRequest: false };
const CT = sampleCiphertext();

function view(over: Partial<PrivacyView> = {}): PrivacyView {
  return { userId: ME, privacy: OPEN, locked: null, granted: false, ...over };
}

function message(over: Partial<ChatMessage> = {}): ChatMessage {
  return {
    chatId: CHAT,
    id: 'm-00000001',
    senderId: ME,
    recipientId: PEER,
    ct: CT,
    rev: 0,
    legacyText: null,
    timestamp: 1,
    status: 'read',
    edited: false,
    deleted: false,
    deliveredAt: 2,
    readAt: 3,
    ...over,
  };
}

const summary: ChatSummary = {
  chatId: CHAT,
  peerId: PEER,
  peer: null,
  last: { id: 'm-00000001', senderId: ME, ct: CT, rev: 0, legacyText: null, deleted: false },
  timestamp: 1,
  unreadCount: 0,
  archived: false,
  locked: false,
  pinnedAt: null,
  mutedUntil: null,
  markedUnread: false,
};

describe('privacy view', () => {
  it('shares one object per combination of settings', () => {
    expect(sharedPrivacy({ ...OPEN })).toBe(sharedPrivacy({ ...OPEN }));
    expect(sharedPrivacy({ ...OPEN, lastSeen: false })).toEqual({ ...OPEN, lastSeen: false });
  });

  it('hides last seen from someone who hides their own, and only then', () => {
    const p: Presence = { userId: PEER, online: false, lastSeen: 5 };
    expect(viewPresence(view(), p)).toBe(p);
    expect(viewPresence(view({ privacy: { ...OPEN, lastSeen: false } }), p)).toEqual({ ...p, lastSeen: null });
  });

  it('never shows read on my own messages when my read receipts are off', () => {
    const off = view({ privacy: { ...OPEN, readReceipts: false } });
    expect(viewMessage(off, message())).toMatchObject({ status: 'delivered', readAt: null, deliveredAt: 2 });
    // The peer's messages to me, and my messages not yet read, are as they are.
    const theirs = message({ senderId: PEER, recipientId: ME });
    expect(viewMessage(off, theirs)).toBe(theirs);
    const delivered = message({ status: 'delivered', readAt: null });
    expect(viewMessage(off, delivered)).toBe(delivered);
  });

  it('keeps the sealed text of a locked chat on the server without a PIN grant', () => {
    const locked = new Set([CHAT]);
    expect(viewMessage(view({ locked }), message())).toEqual({ ...message(), ct: null, legacyText: null });
    expect(viewMessage(view({ locked }), message({ ct: null, legacyText: 'old' }))).toMatchObject({
      ct: null,
      legacyText: null,
    });
    const m = message();
    expect(viewMessage(view({ locked, granted: true }), m)).toBe(m);
  });

  it('masks the last message of a chat locked now or when it was logged', () => {
    expect(viewChat(view({ locked: new Set([CHAT]) }), summary).last).toBeNull();
    expect(viewChat(view(), { ...summary, locked: true }).last).toBeNull();
    expect(viewChat(view({ granted: true }), { ...summary, locked: true })).toEqual({ ...summary, locked: true });
    expect(viewChat(view(), summary)).toBe(summary);
  });

  it("withholds a new message's text when its summary or the socket says the chat is locked, keeping the summary", () => {
    const { last: _, ...state } = summary;
    const u: Update = { kind: 'message', message: message(), chat: state };
    expect(viewUpdate(view(), u)).toBe(u);
    const hidden = { kind: 'message', message: { ...message(), ct: null, legacyText: null }, chat: state };
    expect(viewUpdate(view({ locked: new Set([CHAT]) }), u)).toEqual(hidden);
    const lockedThen: Update = { ...u, chat: { ...state, locked: true } };
    expect(viewUpdate(view(), lockedThen)).toEqual({ ...hidden, chat: { ...state, locked: true } });
    expect(viewUpdate(view({ granted: true }), lockedThen)).toBe(lockedThen);
  });

  it('returns the same update when nothing is hidden, so the logged JSON can go out as it is', () => {
    const u: Update = { kind: 'message', message: message({ status: 'sent', readAt: null, deliveredAt: null }) };
    expect(viewUpdate(view({ privacy: { ...OPEN, readReceipts: false } }), u)).toBe(u);
    const c: Update = { kind: 'chat', chat: summary };
    expect(viewUpdate(view(), c)).toBe(c);
    expect(viewUpdate(view({ locked: new Set([CHAT]) }), c)).toEqual({
      kind: 'chat',
      chat: { ...summary, last: null },
    });
    const other: Update = { kind: 'chatRemoved', chatId: CHAT };
    expect(viewUpdate(view({ locked: new Set([CHAT]) }), other)).toBe(other);
  });
});

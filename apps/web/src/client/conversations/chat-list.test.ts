import type { ChatMessage, ChatState, ChatSummary, Update } from '@app/protocol';
import { sampleCiphertext } from '@app/protocol/test/samples';
import { describe, expect, it } from 'vitest';
import { testMessage } from '@/test/messages';
import type { ChatSocket } from '../socket/chat-socket';
import { UpdateReplay } from '../update-replay';
import type { UserDirectory } from '../user-directory';
import { ChatList, listOrder, listPart } from './chat-list';

const ME = 'a'.repeat(20);
const PEER = 'b'.repeat(20);
const CHAT = `${ME}_${PEER}`;

const state: ChatState = {
  chatId: CHAT,
  peerId: PEER,
  peer: null,
  timestamp: 5,
  unreadCount: 1,
  archived: false,
  locked: false,
  pinnedAt: null,
  mutedUntil: null,
  markedUnread: false,
};

function message(id: string, timestamp: number): ChatMessage {
  return testMessage(id, timestamp, {
    chatId: CHAT,
    senderId: PEER,
    recipientId: ME,
    ct: sampleCiphertext(),
    legacyText: null,
  });
}

describe('chat list', () => {
  it('replays of a message that arrived during a load only the summary it made', () => {
    const m = message('m-00000002', 5);
    expect(listPart({ kind: 'message', message: m, chat: state })).toEqual({
      kind: 'chat',
      chat: { ...state, last: { id: m.id, senderId: PEER, ct: m.ct, rev: 0, legacyText: null, deleted: false } },
    });
    // A receipt or an edit carries no summary: the conversation replays it.
    expect(listPart({ kind: 'message', message: m })).toBeNull();
    const removed: Update = { kind: 'chatRemoved', chatId: CHAT };
    expect(listPart(removed)).toBe(removed);
  });

  it('shows a message that arrived while its answer was on the way, over the older answer', async () => {
    let answer: (r: { chats: ChatSummary[] }) => void = () => {};
    const socket = {
      request: (kind: string) =>
        kind === 'chats' ? new Promise((resolve) => (answer = resolve)) : new Promise(() => {}),
    } as unknown as ChatSocket;
    const replay = new UpdateReplay();
    const list: ChatList = new ChatList({
      socket,
      users: { remember: () => {} } as unknown as UserDirectory,
      replay,
      apply: (u) => {
        if (u.kind === 'chat') list.set(u.chat);
      },
      received: () => {},
      isOpen: () => true,
      changed: () => {},
      destroyed: () => false,
    });
    const loading = list.load();
    const fresh = message('m-00000002', 5);
    replay.record({ kind: 'message', message: fresh, chat: state });
    // The answer was made before the message: one message older, nothing unread.
    const old = message('m-00000001', 4);
    answer({
      chats: [
        { ...state, timestamp: 4, unreadCount: 0, last: { ...old, legacyText: null, deleted: false } } as ChatSummary,
      ],
    });
    await loading;
    expect(list.get(CHAT)).toMatchObject({ timestamp: 5, unreadCount: 1, last: { id: 'm-00000002' } });
  });

  it('orders pinned chats first, the latest pinned on top, then the newest activity first', () => {
    const row = (chatId: string, timestamp: number, pinnedAt: number | null): ChatSummary => ({
      ...state,
      chatId,
      timestamp,
      pinnedAt,
      last: null,
    });
    const rows = [row('old', 1, null), row('pinned-first', 2, 10), row('new', 9, null), row('pinned-last', 3, 20)];
    expect(rows.sort(listOrder).map((c) => c.chatId)).toEqual(['pinned-last', 'pinned-first', 'new', 'old']);
  });
});

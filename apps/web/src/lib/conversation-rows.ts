/**
 * The rows of a conversation as the list shows them: the messages, grouped, with lines
 * between them: the day they were sent, where the unread ones began, where the peer's
 * security code changed and where end-to-end encryption began.
 */
import type { UiMessage } from '@/client/conversations/conversation';
import { startOfDay } from './day-label';

/** Messages of one sender closer than this (and on one day) form a group. */
export const GROUP_GAP_MS = 5 * 60_000;

/** `first`/`last`: where it stands in its group (a lone message is both). */
export type MessageRow = { kind: 'message'; key: string; m: UiMessage; first: boolean; last: boolean };
/** The day (local midnight) of the messages below. */
export type DayRow = { kind: 'day'; key: string; at: number };
/** 'N unread messages', above the first message that was unread when the chat was opened. */
export type UnreadRow = { kind: 'unread'; key: 'unread'; count: number };
/** 'Security code changed' (keys) or 'sent before end-to-end encryption' (e2ee), at a time. */
export type Marker = { kind: 'keys' | 'e2ee'; key: string; at: number };
export type Row = MessageRow | DayRow | UnreadRow | Marker;

/** Where the unread messages begin: the first unread one, and how many there were. */
export interface UnreadMark {
  id: string;
  count: number;
}

/**
 * The first of the last `unreadCount` messages from the peer (the server's count of
 * unread ones), or the oldest loaded one from the peer when fewer are loaded.
 */
export function unreadMark(messages: readonly UiMessage[], peerId: string, unreadCount: number): UnreadMark | null {
  if (unreadCount <= 0) return null;
  let id: string | null = null;
  let seen = 0;
  for (let i = messages.length - 1; i >= 0 && seen < unreadCount; i--) {
    const m = messages[i] as UiMessage;
    if (m.senderId !== peerId || m.pending) continue;
    id = m.id;
    seen++;
  }
  return id === null ? null : { id, count: unreadCount };
}

/** Whether `b` continues the group of `a`: same sender, soon after, same day, `a` not failed. */
function continues(a: UiMessage, b: UiMessage): boolean {
  return (
    a.senderId === b.senderId &&
    a.failed === undefined &&
    b.timestamp - a.timestamp <= GROUP_GAP_MS &&
    startOfDay(a.timestamp) === startOfDay(b.timestamp)
  );
}

/**
 * The rows, in order: a day line above the first message of each day (of the first
 * loaded message only when it is the conversation's first, `fromStart`: an older page
 * may hold more of its day; and a line that stayed first while a page is put above it
 * would hold the list at the top), the unread line
 * above `unread`'s message, each marker after the messages sent up to its time (and only
 * when the loaded conversation began before it), and each message marked first and/or
 * last of its group (a line between two messages ends the group).
 */
export function conversationRows(
  messages: readonly UiMessage[],
  opts: {
    keyChanges?: readonly number[];
    e2eeSince?: number | null;
    unread?: UnreadMark | null;
    /** The first message is the conversation's first (no older page). */
    fromStart?: boolean;
  } = {},
): Row[] {
  const first = messages[0];
  if (!first) return [];
  const markers: Marker[] = (opts.keyChanges ?? []).map((at) => ({ kind: 'keys' as const, key: `keys:${at}`, at }));
  if (opts.e2eeSince != null) markers.push({ kind: 'e2ee', key: 'e2ee', at: opts.e2eeSince });
  const due = markers.filter((k) => k.at >= first.timestamp).sort((a, b) => a.at - b.at);
  const rows: Row[] = [];
  const dayKeys = new Set<string>();
  let next = 0;
  const flush = (before: number) => {
    for (; next < due.length && (due[next] as Marker).at < before; next++) rows.push(due[next] as Marker);
  };
  let day: number | null = opts.fromStart === false ? startOfDay(first.timestamp) : null;
  for (const m of messages) {
    const d = startOfDay(m.timestamp);
    if (d !== day) {
      flush(d);
      day = d;
      // An outbox message typed before the last confirmed one's day may repeat a day: keys stay unique.
      let key = `day:${d}`;
      if (dayKeys.has(key)) key = `${key}:${m.id}`;
      dayKeys.add(key);
      rows.push({ kind: 'day', key, at: d });
    }
    flush(m.timestamp);
    if (opts.unread && m.id === opts.unread.id) rows.push({ kind: 'unread', key: 'unread', count: opts.unread.count });
    rows.push({ kind: 'message', key: m.id, m, first: true, last: true });
  }
  rows.push(...due.slice(next));
  for (let i = 1; i < rows.length; i++) {
    const a = rows[i - 1] as Row;
    const b = rows[i] as Row;
    if (a.kind === 'message' && b.kind === 'message' && continues(a.m, b.m)) {
      a.last = false;
      b.first = false;
    }
  }
  return rows;
}

/** Times as the chat screens show them (spec: en-US hour:minute; under 24 hours → clock time). */
import { CLOCK_TIME_CUTOFF_MS, type Presence } from '@app/protocol';

/** '3:04 PM' */
export function formatClock(ts: number): string {
  return new Date(ts).toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' });
}

/** 'Nov 3' */
export function formatShortDate(ts: number): string {
  return new Date(ts).toLocaleDateString('en-US', { month: 'short', day: 'numeric' });
}

/** The chat list's time: clock time when under 24 hours old, otherwise month and day. */
export function formatListTime(ts: number, now: number = Date.now()): string {
  return now - ts < CLOCK_TIME_CUTOFF_MS ? formatClock(ts) : formatShortDate(ts);
}

function sameDay(a: Date, b: Date): boolean {
  return a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
}

/** 'today at 3:04 PM', 'yesterday at 3:04 PM', 'Nov 3 at 3:04 PM', 'Nov 3, 2023 at 3:04 PM'. */
export function formatDayAndTime(ts: number, now: number = Date.now()): string {
  const d = new Date(ts);
  const today = new Date(now);
  const yesterday = new Date(today.getFullYear(), today.getMonth(), today.getDate() - 1);
  const clock = formatClock(ts);
  if (sameDay(d, today)) return `today at ${clock}`;
  if (sameDay(d, yesterday)) return `yesterday at ${clock}`;
  const date =
    d.getFullYear() === today.getFullYear()
      ? formatShortDate(ts)
      : d.toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric' });
  return `${date} at ${clock}`;
}

/** The chat header's presence line: 'Online', 'Last seen …' or 'Last seen recently'. */
export function presenceText(presence: Presence | undefined, now: number = Date.now()): string {
  if (presence?.online) return 'Online';
  if (!presence || presence.lastSeen === null) return 'Last seen recently';
  return `Last seen ${formatDayAndTime(presence.lastSeen, now)}`;
}

/** Full date and time for the message info dialog: 'Nov 3, 2025, 3:04 PM'. */
export function formatDateTime(ts: number): string {
  return new Date(ts).toLocaleString('en-US', {
    month: 'short',
    day: 'numeric',
    year: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
  });
}

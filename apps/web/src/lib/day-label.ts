/** The conversation's day separators: which local day a message was sent on, and how it is named. */

/** Local midnight of the day `ts` falls on (ms). */
export function startOfDay(ts: number): number {
  const d = new Date(ts);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
}

/** Local midnight `days` days after the day of `ts` (calendar days, whatever the clocks did). */
function dayAfter(ts: number, days: number): number {
  const d = new Date(startOfDay(ts));
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() + days).getTime();
}

/**
 * 'Today', 'Yesterday', the weekday within the last week ('Monday'), else the date
 * ('November 3'), with its year when not this year ('November 3, 2023'). A day in the
 * future (another device's clock) is named by its date.
 */
export function dayLabel(ts: number, now: number = Date.now(), locale = 'en-US'): string {
  const day = startOfDay(ts);
  const today = startOfDay(now);
  if (day === today) return 'Today';
  if (day === dayAfter(now, -1)) return 'Yesterday';
  if (day < today && day >= dayAfter(now, -6)) return new Date(ts).toLocaleDateString(locale, { weekday: 'long' });
  const sameYear = new Date(ts).getFullYear() === new Date(now).getFullYear();
  return new Date(ts).toLocaleDateString(locale, {
    month: 'long',
    day: 'numeric',
    ...(sameYear ? {} : { year: 'numeric' }),
  });
}

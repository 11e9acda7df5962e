import { describe, expect, it } from 'vitest';
import { formatClock, formatDateTime, formatDayAndTime, formatListTime, presenceText } from './format-time';

// Local-time dates, so the tests hold in any time zone.
const now = new Date(2025, 10, 5, 15, 4).getTime(); // Nov 5, 2025, 3:04 PM
const HOUR = 60 * 60 * 1000;

describe('formatListTime', () => {
  it('shows clock time under 24 hours', () => {
    expect(formatListTime(now, now)).toBe('3:04 PM');
    expect(formatListTime(now - 5 * 60 * 1000, now)).toBe('2:59 PM');
    expect(formatListTime(now - 24 * HOUR + 1, now)).toBe('3:04 PM');
  });

  it('shows short month and day from 24 hours on', () => {
    expect(formatListTime(now - 24 * HOUR, now)).toBe('Nov 4');
    expect(formatListTime(new Date(2025, 10, 3, 9, 0).getTime(), now)).toBe('Nov 3');
    expect(formatListTime(new Date(2024, 0, 15, 9, 0).getTime(), now)).toBe('Jan 15');
  });

  it('uses en-US hour:minute', () => {
    expect(formatClock(new Date(2025, 0, 1, 0, 5).getTime())).toBe('12:05 AM');
    expect(formatClock(new Date(2025, 0, 1, 9, 30).getTime())).toBe('9:30 AM');
  });
});

describe('presenceText', () => {
  it('is Online while connected', () => {
    expect(presenceText({ userId: 'u', online: true, lastSeen: now - HOUR }, now)).toBe('Online');
  });

  it('is Last seen recently without a time', () => {
    expect(presenceText({ userId: 'u', online: false, lastSeen: null }, now)).toBe('Last seen recently');
    expect(presenceText(undefined, now)).toBe('Last seen recently');
  });

  it('names today, yesterday, or the date', () => {
    const p = (ts: number) => presenceText({ userId: 'u', online: false, lastSeen: ts }, now);
    expect(p(new Date(2025, 10, 5, 8, 15).getTime())).toBe('Last seen today at 8:15 AM');
    expect(p(new Date(2025, 10, 4, 23, 59).getTime())).toBe('Last seen yesterday at 11:59 PM');
    expect(p(new Date(2025, 10, 3, 15, 4).getTime())).toBe('Last seen Nov 3 at 3:04 PM');
    expect(p(new Date(2024, 10, 3, 15, 4).getTime())).toBe('Last seen Nov 3, 2024 at 3:04 PM');
  });

  it('handles the first of a month', () => {
    const first = new Date(2025, 11, 1, 10, 0).getTime();
    expect(formatDayAndTime(new Date(2025, 10, 30, 22, 0).getTime(), first)).toBe('yesterday at 10:00 PM');
  });
});

describe('formatDateTime', () => {
  it('shows date and time', () => {
    expect(formatDateTime(now)).toBe('Nov 5, 2025, 3:04 PM');
  });
});

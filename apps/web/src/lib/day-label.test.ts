import { describe, expect, it } from 'vitest';
import { dayLabel, startOfDay } from './day-label';

// Local-time dates, so the tests hold in any time zone.
const now = new Date(2025, 10, 5, 15, 4).getTime(); // Wednesday, Nov 5, 2025, 3:04 PM
const at = (y: number, m: number, d: number, h = 12, min = 0) => new Date(y, m, d, h, min).getTime();

describe('dayLabel', () => {
  it('says Today for any time of the current day', () => {
    expect(dayLabel(at(2025, 10, 5, 0, 0), now)).toBe('Today');
    expect(dayLabel(at(2025, 10, 5, 23, 59), now)).toBe('Today');
  });

  it('says Yesterday for the day before, even a minute before midnight', () => {
    expect(dayLabel(at(2025, 10, 4, 23, 59), now)).toBe('Yesterday');
    expect(dayLabel(at(2025, 10, 4, 0, 0), now)).toBe('Yesterday');
  });

  it('names the weekday within the last week', () => {
    expect(dayLabel(at(2025, 10, 3), now)).toBe('Monday');
    expect(dayLabel(at(2025, 9, 30), now)).toBe('Thursday');
  });

  it('gives the date from a week ago on, with the year only when not this year', () => {
    // A week ago is the same weekday as today: a date, not 'Wednesday'.
    expect(dayLabel(at(2025, 9, 29), now)).toBe('October 29');
    expect(dayLabel(at(2025, 0, 1), now)).toBe('January 1');
    expect(dayLabel(at(2024, 11, 31), now)).toBe('December 31, 2024');
  });

  it('crosses a month and a year boundary by calendar days', () => {
    const newYear = at(2026, 0, 1, 9);
    expect(dayLabel(at(2025, 11, 31, 22), newYear)).toBe('Yesterday');
    expect(dayLabel(at(2025, 11, 27), newYear)).toBe('Saturday');
    expect(dayLabel(at(2025, 11, 25), newYear)).toBe('December 25, 2025');
  });

  it('names a day after today (a clock ahead) by its date', () => {
    expect(dayLabel(at(2025, 10, 6), now)).toBe('November 6');
  });
});

describe('startOfDay', () => {
  it('is local midnight of the day', () => {
    expect(startOfDay(at(2025, 10, 5, 15, 4))).toBe(at(2025, 10, 5, 0, 0));
    expect(startOfDay(at(2025, 10, 5, 0, 0))).toBe(at(2025, 10, 5, 0, 0));
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LongPress, type PressPoint } from './long-press';

describe('LongPress', () => {
  let fired: PressPoint[];
  let press: LongPress;
  beforeEach(() => {
    vi.useFakeTimers();
    fired = [];
    press = new LongPress((at) => fired.push(at), 500, 10);
  });
  afterEach(() => vi.useRealTimers());

  it('fires once, where the finger went down, after resting 500 ms', () => {
    press.start({ x: 100, y: 200 });
    vi.advanceTimersByTime(499);
    expect(fired).toEqual([]);
    press.move({ x: 104, y: 205 }); // a trembling finger is still a press
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([{ x: 100, y: 200 }]);
    vi.advanceTimersByTime(2000);
    expect(fired).toHaveLength(1);
  });

  it('drops the press when the finger lifts, moves past the slop, or the touch is cancelled', () => {
    press.start({ x: 0, y: 0 });
    vi.advanceTimersByTime(300);
    press.cancel();
    vi.advanceTimersByTime(1000);

    press.start({ x: 0, y: 0 });
    press.move({ x: 0, y: 11 });
    expect(press.pending).toBe(false);
    vi.advanceTimersByTime(1000);
    expect(fired).toEqual([]);
  });

  it('swallows the one click that ends a long press, and no click of a short tap', () => {
    press.start({ x: 1, y: 1 });
    vi.advanceTimersByTime(200);
    press.cancel();
    expect(press.takeClick()).toBe(false);

    press.start({ x: 1, y: 1 });
    vi.advanceTimersByTime(499);
    expect(press.hasFired).toBe(false);
    vi.advanceTimersByTime(1);
    expect(press.hasFired).toBe(true);
    expect(press.takeClick()).toBe(true);
    expect(press.takeClick()).toBe(false);
  });

  it('a new pointer down forgets a fired press that had no click', () => {
    press.start({ x: 1, y: 1 });
    vi.advanceTimersByTime(500);
    press.reset();
    expect(press.takeClick()).toBe(false);
  });

  it("the browser's context menu during a press fires it at once; a right-click is left alone", () => {
    expect(press.contextMenu()).toBe('none');
    press.start({ x: 5, y: 6 });
    vi.advanceTimersByTime(100);
    expect(press.contextMenu()).toBe('press');
    expect(fired).toEqual([{ x: 5, y: 6 }]);
    // It came after the timer (Android's own long press): swallowed, not fired twice.
    expect(press.contextMenu()).toBe('press');
    vi.advanceTimersByTime(1000);
    expect(fired).toHaveLength(1);
  });
});

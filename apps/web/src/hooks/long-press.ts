/** A point on the screen (client coordinates). */
export interface PressPoint {
  x: number;
  y: number;
}

/** How long a finger rests before a press counts as long (ms). */
export const LONG_PRESS_MS = 500;
/** How far a finger may drift (px) before the press is taken for a scroll and dropped. */
export const LONG_PRESS_SLOP_PX = 10;

/**
 * The rules of a long press, apart from React and the DOM: a press that rests `delay` ms
 * within `slop` px of where it started fires once; moving further, lifting or a cancel
 * (the browser took the touch for a scroll) before then drops it. The click that ends a
 * fired press is swallowed, and so is the browser's own context menu for it (Android
 * opens one on a long press; when it comes first, it fires the press at once).
 */
export class LongPress {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private origin: PressPoint | null = null;
  private fired = false;
  private readonly onLongPress: (at: PressPoint) => void;
  private readonly delay: number;
  private readonly slop: number;

  constructor(onLongPress: (at: PressPoint) => void, delay = LONG_PRESS_MS, slop = LONG_PRESS_SLOP_PX) {
    this.onLongPress = onLongPress;
    this.delay = delay;
    this.slop = slop;
  }

  /** A finger went down at `at`. */
  start(at: PressPoint): void {
    this.cancel();
    this.fired = false;
    this.origin = at;
    this.timer = setTimeout(() => this.fire(), this.delay);
  }

  /** Any pointer went down: a press that fired before no longer swallows clicks. */
  reset(): void {
    this.fired = false;
  }

  /** The finger moved: too far, and it is a scroll or a drag, not a press. */
  move(at: PressPoint): void {
    const o = this.origin;
    if (o && this.timer !== null && Math.hypot(at.x - o.x, at.y - o.y) > this.slop) this.cancel();
  }

  /** The finger lifted, the browser cancelled the touch, or the page scrolled. */
  cancel(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.origin = null;
  }

  /** Whether a press is waiting for its time. */
  get pending(): boolean {
    return this.timer !== null;
  }

  /** Whether the last press fired (its finger may still be down). */
  get hasFired(): boolean {
    return this.fired;
  }

  /**
   * The click at the end of the press: true when it ends a long press (swallow it).
   * Asked once per click.
   */
  takeClick(): boolean {
    const fired = this.fired;
    this.fired = false;
    return fired;
  }

  /**
   * The browser's context menu: 'press' when it belongs to a touch press (fired now, or
   * already), to be swallowed; 'none' for a mouse's right-click.
   */
  contextMenu(): 'press' | 'none' {
    if (this.timer !== null) {
      this.fire();
      return 'press';
    }
    return this.fired ? 'press' : 'none';
  }

  private fire(): void {
    const at = this.origin;
    this.cancel();
    if (!at) return;
    this.fired = true;
    this.onLongPress(at);
  }
}

/**
 * Fixed-window counters in memory. `hit` counts an event and tells whether the key is
 * over its limit; `check` only looks. Keys expire with their window.
 */
export interface LimitResult {
  allowed: boolean;
  remaining: number;
  retryAfterMs: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private readonly timer: NodeJS.Timeout;
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(limit: number, windowMs: number, now: () => number = Date.now) {
    this.limit = limit;
    this.windowMs = windowMs;
    this.now = now;
    this.timer = setInterval(() => this.sweep(), Math.min(windowMs, 60_000));
    this.timer.unref();
  }

  private current(key: string): { count: number; resetAt: number } {
    const t = this.now();
    let w = this.windows.get(key);
    if (!w || w.resetAt <= t) {
      w = { count: 0, resetAt: t + this.windowMs };
      this.windows.set(key, w);
    }
    return w;
  }

  check(key: string): LimitResult {
    const w = this.current(key);
    return {
      allowed: w.count < this.limit,
      remaining: Math.max(0, this.limit - w.count),
      retryAfterMs: w.count < this.limit ? 0 : w.resetAt - this.now(),
    };
  }

  /** Counts one event. Allowed while the count stays within the limit. */
  hit(key: string): LimitResult {
    const w = this.current(key);
    w.count += 1;
    const allowed = w.count <= this.limit;
    return {
      allowed,
      remaining: Math.max(0, this.limit - w.count),
      retryAfterMs: allowed ? 0 : w.resetAt - this.now(),
    };
  }

  reset(key: string): void {
    this.windows.delete(key);
  }

  private sweep(): void {
    const t = this.now();
    for (const [k, w] of this.windows) if (w.resetAt <= t) this.windows.delete(k);
  }

  close(): void {
    clearInterval(this.timer);
  }
}

/** Waiting until a condition holds, re-checked whenever a test client's state changes. */
export class Waiters {
  private list: (() => void)[] = [];
  private readonly what: string;

  constructor(what: string) {
    this.what = what;
  }

  /** Something changed: every waiter checks its condition again. */
  wake(): void {
    const w = this.list;
    this.list = [];
    for (const f of w) f();
  }

  /** Resolves once `pred` holds, or rejects after `ms` (naming `what`, when given). */
  waitFor(pred: () => boolean, ms = 5000, what = this.what): Promise<void> {
    if (pred()) return Promise.resolve();
    const since = Date.now();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what} (${Date.now() - since} ms)`)), ms);
      const check = () => {
        if (pred()) {
          clearTimeout(timer);
          resolve();
        } else this.list.push(check);
      };
      this.list.push(check);
    });
  }
}

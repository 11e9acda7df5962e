/**
 * Updates that arrive while a load is in flight: the load's answer may be older than
 * them, so they are applied again over it once it lands (each update carries the full new
 * state, so applying one twice is harmless).
 */
import type { Update } from '@app/protocol';

export class UpdateReplay {
  private inFlight = 0;
  private log: Update[] = [];

  /** A load starts: returns where its replay begins. */
  begin(): number {
    this.inFlight += 1;
    return this.log.length;
  }

  /** An update arrived: kept while any load is in flight. */
  record(update: Update): void {
    if (this.inFlight > 0) this.log.push(update);
  }

  /** The load that began at `start` landed (or failed): re-applies what `keep` selects. */
  end(start: number, keep: (u: Update) => boolean, apply: (u: Update) => void): void {
    for (const u of this.log.slice(start)) if (keep(u)) apply(u);
    this.inFlight -= 1;
    if (this.inFlight === 0) this.log = [];
  }
}

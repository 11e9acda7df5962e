/**
 * Everything a user writes over their sockets (messages, edits, deletions, receipts,
 * flags, typing…) is paced per user across all of their sockets and processes: a GCRA in
 * the shared LimitStore. With Redis a round trip per frame would sit in front of every
 * send, so a process takes a few slots at a time (a lease, valid a second) and spends
 * them locally: the limit is never exceeded (every write spends a slot of the one shared
 * bucket); slots a process leased and did not use are forfeit.
 */
import type { LimitStore, Pace } from '../security/limits.ts';

const LEASE_MS = 1000;

export class WritePace {
  private readonly store: LimitStore;
  private readonly intervalMs: number;
  private readonly maxAheadMs: number;
  private readonly lease: number;
  private readonly leases = new Map<string, { left: number; until: number }>();
  /** The store's answer a user's write is waiting for. */
  private readonly asking = new Map<string, Promise<Pace>>();

  /**
   * `perSecond` on average, bursts of `burst`; `lease`: slots taken at once (1 when the
   * store is this process's own memory).
   */
  constructor(store: LimitStore, perSecond: number, burst: number, lease: number) {
    this.store = store;
    // Whole milliseconds (what every store keeps): at most 1,000 a second.
    this.intervalMs = Math.max(1, Math.floor(1000 / Math.max(1, perSecond)));
    this.maxAheadMs = this.intervalMs * Math.max(0, burst - 1);
    this.lease = Math.max(1, Math.min(lease, burst));
  }

  /**
   * Takes one slot for a write of `userId`; false when the user is over the pace. One
   * question to the store per user at a time: writes that come meanwhile (the user's other
   * sockets) wait for its lease instead of asking too, which would overwrite it and forfeit
   * slots the store granted.
   */
  async take(userId: string, now = Date.now()): Promise<boolean> {
    for (;;) {
      const held = this.leases.get(userId);
      if (held && held.left > 0 && held.until > now) {
        held.left -= 1;
        return true;
      }
      const asking = this.asking.get(userId);
      if (!asking) break;
      // Only waiting for the other caller's answer: its failure is that caller's to report.
      await asking.catch(() => {});
    }
    const asking = this.store.pace(`send:${userId}`, this.intervalMs, this.maxAheadMs, now, this.lease);
    this.asking.set(userId, asking);
    try {
      const r = await asking;
      if (!r.ok) return false;
      if (r.granted > 1) this.leases.set(userId, { left: r.granted - 1, until: now + LEASE_MS });
      else this.leases.delete(userId);
      return true;
    } finally {
      if (this.asking.get(userId) === asking) this.asking.delete(userId);
    }
  }

  /** Forgets expired leases (and the store what has expired in it). */
  async sweep(now = Date.now()): Promise<void> {
    for (const [k, l] of this.leases) if (l.until <= now || l.left === 0) this.leases.delete(k);
    await this.store.sweep(now);
  }
}

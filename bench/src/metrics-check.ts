/**
 * The server's own counters against the bench's: /metrics is scraped before the clients
 * connect and after each phase, as Prometheus would, and parley_messages_stored_total must
 * move by exactly the number of sends the load generators saw acknowledged. With several
 * server processes, their counters are added up.
 */
import { metricSample } from '@app/server';

const STORED = 'parley_messages_stored_total';

export interface PhaseCount {
  phase: string;
  /** How far the server's counter moved during the phase. */
  stored: number;
  /** Acknowledgements the load generators received during the phase. */
  acked: number;
}

export class MetricsCheck {
  private readonly scrape: () => Promise<string[]>;
  private last: number;
  private lastAcked = 0;
  readonly phases: PhaseCount[] = [];

  private constructor(scrape: () => Promise<string[]>, first: number) {
    this.scrape = scrape;
    this.last = first;
  }

  static async start(scrape: () => Promise<string[]>): Promise<MetricsCheck> {
    return new MetricsCheck(scrape, await stored(scrape));
  }

  /** After a phase: `ackedTotal`, the load generators' acknowledgements since they started. */
  async phase(name: string, ackedTotal: number): Promise<void> {
    const now = await stored(this.scrape);
    this.phases.push({ phase: name, stored: now - this.last, acked: ackedTotal - this.lastAcked });
    this.last = now;
    this.lastAcked = ackedTotal;
  }

  /** Every phase moved the counter, by as much as the bench counted. */
  get matches(): boolean {
    return this.phases.length > 0 && this.phases.every((p) => p.stored > 0 && p.stored === p.acked);
  }

  describe(fmt: (v: number) => string): string {
    const parts = this.phases.map((p) => `${p.phase} +${fmt(p.stored)} (bench acknowledged ${fmt(p.acked)})`);
    return `${STORED}: ${parts.join(', ')}  ${this.matches ? 'match' : 'MISMATCH'}`;
  }
}

async function stored(scrape: () => Promise<string[]>): Promise<number> {
  let sum = 0;
  for (const text of await scrape()) {
    const v = metricSample(text, STORED);
    if (v === null) throw new Error(`/metrics has no ${STORED}`);
    sum += v;
  }
  return sum;
}

/**
 * The server's own counters against the bench's: /metrics is scraped before the clients
 * connect and after each phase, as Prometheus would, and parley_messages_stored_total must
 * move by exactly the number of sends the load generators saw acknowledged. With several
 * server processes, their counters are added up.
 */
import { metricSample } from '@app/server';
import { combine, type Histogram, parseHistogram, quantileBound } from './histogram.ts';

const STORED = 'parley_messages_stored_total';
/** From a send's frame read to its acknowledgement written, on the server. */
const SEND = 'parley_send_seconds';
/** Writes committed together in one transaction. */
const GROUP = 'parley_group_commit_jobs';
/** Updates a socket read from the log to fill a gap (several processes: an update overtaken and not come in time). */
const CATCH_UP = 'parley_update_catchup_entries_total';
/** An update's time from its publication by one process to its arrival at another. */
const LAG = 'parley_update_lag_seconds';

export interface PhaseCount {
  phase: string;
  /** How far the server's counter moved during the phase. */
  stored: number;
  /** Acknowledgements the load generators received during the phase. */
  acked: number;
  /** The server's own send times and commit groups during the phase (absent from old servers). */
  send?: Histogram;
  groups?: Histogram;
  /** Updates read from the log to fill gaps, and the hub's publication → arrival times (several processes). */
  catchUp?: number;
  lag?: Histogram;
}

interface Reading {
  stored: number;
  catchUp: number;
  send: Histogram | null;
  groups: Histogram | null;
  lag: Histogram | null;
}

export class MetricsCheck {
  private readonly scrape: () => Promise<string[]>;
  private last: Reading;
  private lastAcked = 0;
  readonly phases: PhaseCount[] = [];

  private constructor(scrape: () => Promise<string[]>, first: Reading) {
    this.scrape = scrape;
    this.last = first;
  }

  static async start(scrape: () => Promise<string[]>): Promise<MetricsCheck> {
    return new MetricsCheck(scrape, await read(scrape));
  }

  /** After a phase: `ackedTotal`, the load generators' acknowledgements since they started. */
  async phase(name: string, ackedTotal: number): Promise<void> {
    const now = await read(this.scrape);
    const phase: PhaseCount = {
      phase: name,
      stored: now.stored - this.last.stored,
      acked: ackedTotal - this.lastAcked,
    };
    if (now.send && this.last.send) phase.send = combine(now.send, this.last.send, -1);
    if (now.groups && this.last.groups) phase.groups = combine(now.groups, this.last.groups, -1);
    if (now.lag && this.last.lag) {
      phase.lag = combine(now.lag, this.last.lag, -1);
      phase.catchUp = now.catchUp - this.last.catchUp;
    }
    this.phases.push(phase);
    this.last = now;
    this.lastAcked = ackedTotal;
  }

  /**
   * What the server says of a phase: its send → acknowledgement time (p50 and p99, as the
   * upper bounds of their histogram buckets) and the sends a commit served on average; null
   * when the server has no such histograms.
   */
  server(phase: string): string | null {
    const p = this.phases.find((x) => x.phase === phase);
    if (!p?.send || p.send.count <= 0) return null;
    const ms = (h: Histogram, q: number) => {
      const bound = quantileBound(h, q);
      return bound === null ? '?' : bound === Number.POSITIVE_INFINITY ? '> 5 s' : `≤ ${bound * 1000} ms`;
    };
    const perGroup =
      p.groups && p.groups.count > 0 ? `, ${(p.groups.sum / p.groups.count).toFixed(1)} sends a commit` : '';
    // Several processes: how updates crossed between them.
    const hub =
      p.lag && p.lag.count > 0
        ? `; between processes: ${p.lag.count} updates, p99 ${ms(p.lag, 0.99)}, ${p.catchUp ?? 0} read from the log to fill gaps`
        : '';
    return `send → ack on the server p50 ${ms(p.send, 0.5)}, p99 ${ms(p.send, 0.99)} (mean ${((p.send.sum / p.send.count) * 1000).toFixed(1)} ms)${perGroup}${hub}`;
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

/** The counters and histograms of every process, added up. */
async function read(scrape: () => Promise<string[]>): Promise<Reading> {
  const reading: Reading = { stored: 0, catchUp: 0, send: null, groups: null, lag: null };
  const add = (a: Histogram | null, b: Histogram | null) => (a && b ? combine(a, b) : (a ?? b));
  for (const text of await scrape()) {
    const v = metricSample(text, STORED);
    if (v === null) throw new Error(`/metrics has no ${STORED}`);
    reading.stored += v;
    reading.send = add(reading.send, parseHistogram(text, SEND));
    reading.groups = add(reading.groups, parseHistogram(text, GROUP));
    reading.lag = add(reading.lag, parseHistogram(text, LAG));
    reading.catchUp += metricSample(text, CATCH_UP) ?? 0;
  }
  return reading;
}

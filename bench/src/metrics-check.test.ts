import { describe, expect, it } from 'vitest';
import { MetricsCheck } from './metrics-check.ts';

const text = (v: number | null) =>
  `# HELP x\nparley_sockets 3\n${v === null ? '' : `parley_messages_stored_total ${v}\n`}`;

/** A scrape of one process that answers the given counter values in turn, as Prometheus text. */
function scrapes(...values: (number | null)[]): () => Promise<string[]> {
  let i = 0;
  return async () => [text(values[i++] ?? null)];
}

/** A histogram as /metrics writes it: cumulative bucket counts, their sum and count. */
const hist = (name: string, les: string[], counts: number[], sum: number) =>
  [
    ...les.map((le, i) => `${name}_bucket{le="${le}"} ${counts[i]}`),
    `${name}_sum ${sum}`,
    `${name}_count ${counts[counts.length - 1]}`,
  ].join('\n');

describe('MetricsCheck', () => {
  it('matches when each phase moves the counter by what the bench saw acknowledged', async () => {
    const m = await MetricsCheck.start(scrapes(7, 1_507, 19_739));
    await m.phase('latency', 1_500);
    await m.phase('throughput', 19_732);
    expect(m.phases).toEqual([
      { phase: 'latency', stored: 1_500, acked: 1_500 },
      { phase: 'throughput', stored: 18_232, acked: 18_232 },
    ]);
    expect(m.matches).toBe(true);
    expect(m.describe(String)).toBe(
      'parley_messages_stored_total: latency +1500 (bench acknowledged 1500), throughput +18232 (bench acknowledged 18232)  match',
    );
  });

  it('does not match when the server counted more or fewer, or nothing moved', async () => {
    const more = await MetricsCheck.start(scrapes(0, 862));
    await more.phase('latency', 859);
    expect(more.matches).toBe(false);
    expect(more.describe(String)).toMatch(/MISMATCH$/);

    const still = await MetricsCheck.start(scrapes(5, 5));
    await still.phase('latency', 0);
    expect(still.matches).toBe(false);

    const none = await MetricsCheck.start(scrapes(0));
    expect(none.matches).toBe(false);
  });

  it("adds up several processes' counters", async () => {
    const rounds = [
      [3, 4],
      [503, 1_004],
    ];
    let i = 0;
    const m = await MetricsCheck.start(async () => (rounds[i++] ?? []).map(text));
    await m.phase('latency', 1_500);
    expect(m.phases).toEqual([{ phase: 'latency', stored: 1_500, acked: 1_500 }]);
    expect(m.matches).toBe(true);
  });

  it('fails loudly when /metrics has no message counter', async () => {
    await expect(MetricsCheck.start(scrapes(null))).rejects.toThrow(/no parley_messages_stored_total/);
  });

  it("reads the server's send times and commit groups of each phase", async () => {
    const scrapeOf = (stored: number, send: number[], sendSum: number, groups: number[], groupSum: number) =>
      [
        `parley_messages_stored_total ${stored}`,
        hist('parley_send_seconds', ['0.005', '0.1', '+Inf'], send, sendSum),
        hist('parley_group_commit_jobs', ['1', '8', '+Inf'], groups, groupSum),
      ].join('\n');
    const rounds = [scrapeOf(0, [0, 0, 0], 0, [0, 0, 0], 0), scrapeOf(100, [60, 99, 100], 1.5, [2, 20, 25], 100)];
    let i = 0;
    const m = await MetricsCheck.start(async () => [rounds[i++] ?? '']);
    await m.phase('latency', 100);
    expect(m.server('latency')).toBe(
      'send → ack on the server p50 ≤ 5 ms, p99 ≤ 100 ms (mean 15.0 ms), 4.0 sends a commit',
    );
    expect(m.server('throughput')).toBeNull();
  });

  it('with several processes, says how updates crossed between them', async () => {
    const scrapeOf = (stored: number, send: number[], lag: number[], catchUp: number) =>
      [
        `parley_messages_stored_total ${stored}`,
        `parley_update_catchup_entries_total ${catchUp}`,
        hist('parley_send_seconds', ['0.005', '+Inf'], send, 0.1 * send[1]!),
        hist('parley_update_lag_seconds', ['0.01', '0.1', '+Inf'], lag, 0),
      ].join('\n');
    // Two processes, each scraped twice.
    const rounds = [
      [scrapeOf(0, [0, 0], [0, 0, 0], 0), scrapeOf(0, [0, 0], [0, 0, 0], 0)],
      [scrapeOf(50, [50, 50], [40, 50, 50], 3), scrapeOf(50, [50, 50], [48, 50, 50], 4)],
    ];
    let i = 0;
    const m = await MetricsCheck.start(async () => rounds[i++] ?? []);
    await m.phase('throughput', 100);
    expect(m.phases[0]).toMatchObject({ stored: 100, catchUp: 7 });
    expect(m.server('throughput')).toContain(
      'between processes: 100 updates, p99 ≤ 100 ms, 7 read from the log to fill gaps',
    );
  });
});

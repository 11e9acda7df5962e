import { describe, expect, it } from 'vitest';
import { MetricsCheck } from './metrics-check.ts';

const text = (v: number | null) =>
  `# HELP x\nparley_sockets 3\n${v === null ? '' : `parley_messages_stored_total ${v}\n`}`;

/** A scrape of one process that answers the given counter values in turn, as Prometheus text. */
function scrapes(...values: (number | null)[]): () => Promise<string[]> {
  let i = 0;
  return async () => [text(values[i++] ?? null)];
}

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
});

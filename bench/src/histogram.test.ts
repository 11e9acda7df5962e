import { describe, expect, it } from 'vitest';
import { combine, parseHistogram, quantileBound } from './histogram.ts';

const scrape = (counts: number[], sum: number) =>
  [
    '# HELP parley_send_seconds x',
    '# TYPE parley_send_seconds histogram',
    ...[0.001, 0.01, 0.1].map((le, i) => `parley_send_seconds_bucket{le="${le}"} ${counts[i]}`),
    `parley_send_seconds_bucket{le="+Inf"} ${counts[3]}`,
    `parley_send_seconds_sum ${sum}`,
    `parley_send_seconds_count ${counts[3]}`,
    'parley_sockets 3',
  ].join('\n');

describe('histograms from /metrics', () => {
  it('reads the buckets, sum and count; null when the histogram is absent', () => {
    const h = parseHistogram(scrape([1, 5, 9, 10], 0.4), 'parley_send_seconds');
    expect(h).toEqual({
      buckets: [
        { le: 0.001, count: 1 },
        { le: 0.01, count: 5 },
        { le: 0.1, count: 9 },
        { le: Number.POSITIVE_INFINITY, count: 10 },
      ],
      sum: 0.4,
      count: 10,
    });
    expect(parseHistogram('parley_sockets 3', 'parley_send_seconds')).toBeNull();
  });

  it('adds processes, subtracts an earlier scrape, and bounds a quantile by its bucket', () => {
    const a = parseHistogram(scrape([1, 5, 9, 10], 0.4), 'parley_send_seconds');
    const b = parseHistogram(scrape([0, 10, 10, 10], 0.05), 'parley_send_seconds');
    if (!a || !b) throw new Error('parse');
    const both = combine(a, b);
    expect(both.count).toBe(20);
    expect(quantileBound(both, 0.5)).toBe(0.01);
    expect(quantileBound(both, 0.99)).toBe(Number.POSITIVE_INFINITY);
    const phase = combine(both, a, -1);
    expect(phase.buckets).toEqual(b.buckets);
    expect(phase.count).toBe(b.count);
    expect(phase.sum).toBeCloseTo(b.sum, 12);
    expect(quantileBound(phase, 0.99)).toBe(0.01);
    expect(quantileBound(combine(a, a, -1), 0.5)).toBeNull();
  });
});

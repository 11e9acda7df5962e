/**
 * Prometheus histograms read from /metrics text: each bucket's cumulative count, the sum and
 * the count, added up over several processes and subtracted between two scrapes, so the bench
 * can say what one phase did on the server (metrics-check.ts).
 */
export interface Histogram {
  /** Upper bounds (`le`), ascending, +Inf last, with their cumulative counts. */
  buckets: { le: number; count: number }[];
  sum: number;
  count: number;
}

const num = (s: string) => (s === '+Inf' ? Number.POSITIVE_INFINITY : Number(s));

/** The histogram `name` of one scrape (no labels besides `le`), or null when absent. */
export function parseHistogram(text: string, name: string): Histogram | null {
  const buckets: Histogram['buckets'] = [];
  let sum: number | null = null;
  let count: number | null = null;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}_bucket{le="`)) {
      const m = /^[^{]+\{le="([^"]+)"\} (\S+)$/.exec(line);
      if (m?.[1] !== undefined && m[2] !== undefined) buckets.push({ le: num(m[1]), count: Number(m[2]) });
    } else if (line.startsWith(`${name}_sum `)) sum = Number(line.slice(name.length + 5));
    else if (line.startsWith(`${name}_count `)) count = Number(line.slice(name.length + 7));
  }
  if (sum === null || count === null || buckets.length === 0) return null;
  buckets.sort((a, b) => a.le - b.le);
  return { buckets, sum, count };
}

/** `a` and `b` bucket by bucket (the same buckets), `sign` -1 to subtract `b`. */
export function combine(a: Histogram, b: Histogram, sign: 1 | -1 = 1): Histogram {
  return {
    buckets: a.buckets.map((x, i) => ({ le: x.le, count: x.count + sign * (b.buckets[i]?.count ?? 0) })),
    sum: a.sum + sign * b.sum,
    count: a.count + sign * b.count,
  };
}

/** The upper bound of the bucket holding quantile `q` (0–1); null when empty. */
export function quantileBound(h: Histogram, q: number): number | null {
  if (h.count <= 0) return null;
  const rank = q * h.count;
  for (const b of h.buckets) if (b.count >= rank) return b.le;
  return Number.POSITIVE_INFINITY;
}

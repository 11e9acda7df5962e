/**
 * Reading a server's /metrics (Prometheus text) as a scraper does: the tests, and the bench
 * checking that the counters move with the messages it sends.
 */

/** GET /metrics with the METRICS_TOKEN bearer token. */
export async function scrapeMetrics(
  baseUrl: string,
  token: string,
): Promise<{ status: number; text: string; type: string | null }> {
  const res = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') };
}

/** A sample's value (the line 'name value', without labels), or null when absent. */
export function metricSample(text: string, name: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) : null;
}

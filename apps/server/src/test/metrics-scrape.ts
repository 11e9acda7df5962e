/** Reading a test server's /metrics (Prometheus text) as a scraper does. */
import type { TestServer } from './harness.ts';

/** The token tests give METRICS_TOKEN. */
export const METRICS_TEST_TOKEN = 'scrape-me-0123456789';

export async function scrape(
  t: Pick<TestServer, 'url'>,
  token = METRICS_TEST_TOKEN,
): Promise<{ status: number; text: string; type: string | null }> {
  const res = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') };
}

/** A sample's value ('name{labels} value'), or null. */
export function sample(text: string, name: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) : null;
}

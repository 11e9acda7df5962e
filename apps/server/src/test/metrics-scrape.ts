/** Reading a test server's /metrics with the token the tests give METRICS_TOKEN. */
import { metricSample, scrapeMetrics } from '../metrics/scrape.ts';
import type { TestServer } from './harness.ts';

/** The token tests give METRICS_TOKEN. */
export const METRICS_TEST_TOKEN = 'scrape-me-0123456789';

export function scrape(t: Pick<TestServer, 'url'>, token = METRICS_TEST_TOKEN): ReturnType<typeof scrapeMetrics> {
  return scrapeMetrics(t.url, token);
}

export const sample = metricSample;

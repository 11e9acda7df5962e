/**
 * GET /metrics (Prometheus text format) for a scraper holding METRICS_TOKEN as its bearer
 * token; without the setting there is no such route. Every HTTP response is counted by status.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Metrics } from './metrics.ts';

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function registerMetrics(app: FastifyInstance, metrics: Metrics, token: string | null): void {
  app.addHook('onResponse', async (_req, reply) => {
    metrics.httpResponses.inc({ status: String(reply.statusCode) });
    if (reply.statusCode === 429) metrics.rateLimited.inc({ scope: 'http' });
  });
  if (!token) return;
  app.get('/metrics', async (req, reply) => {
    const auth = req.headers.authorization ?? '';
    if (!auth.startsWith('Bearer ') || !sameToken(auth.slice('Bearer '.length), token)) {
      return reply.code(401).header('www-authenticate', 'Bearer').send({ error: 'unauthenticated' });
    }
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}

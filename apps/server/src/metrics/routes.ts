/**
 * GET /metrics (Prometheus text format) for a scraper holding METRICS_TOKEN as its bearer
 * token; without the setting there is no such route. Every HTTP response is counted by status
 * and timed by route pattern (not /metrics itself), and every refused sign-in by its reason.
 */
import { timingSafeEqual } from 'node:crypto';
import { API } from '@app/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Metrics } from './metrics.ts';
import { signInFailureOf } from './sign-in.ts';

const METRICS_PATH = '/metrics';
/** The methods a label may name; any other is "other" (Node's parser knows some thirty). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The `route` label: the pattern Fastify matched (never req.url); "static" for the web app's
 * files (@fastify/static makes a route of each, marked by its config's `file`); "unmatched"
 * when none matched (a 404, or a page of the web app answered with its HTML).
 */
function routeLabel(req: FastifyRequest): string {
  const { url, config } = req.routeOptions;
  if (url === undefined) return 'unmatched';
  if (config && 'file' in config) return 'static';
  return url;
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function registerMetrics(app: FastifyInstance, metrics: Metrics, token: string | null): void {
  app.addHook('onResponse', async (req, reply) => {
    const status = reply.statusCode;
    metrics.httpResponses.inc({ status: String(status) });
    if (status === 429) metrics.rateLimited.inc({ scope: 'http' });
    const route = req.routeOptions.url;
    if (route === METRICS_PATH) return;
    metrics.httpDuration.observe(
      {
        method: METHODS.has(req.method) ? req.method : 'other',
        route: routeLabel(req),
        status_class: `${Math.floor(status / 100)}xx`,
      },
      reply.elapsedTime / 1000,
    );
    if (route === API.signIn && req.method === 'POST' && status >= 400) {
      metrics.signInFailures.inc({ reason: signInFailureOf(req, status) });
    }
  });
  if (!token) return;
  app.get(METRICS_PATH, async (req, reply) => {
    const auth = req.headers.authorization ?? '';
    if (!auth.startsWith('Bearer ') || !sameToken(auth.slice('Bearer '.length), token)) {
      return reply.code(401).header('www-authenticate', 'Bearer').send({ error: 'unauthenticated' });
    }
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}

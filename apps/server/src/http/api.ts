import fastifyRateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';

/** The per-client request limit of the API. */
export interface ApiLimit {
  perMinute: number;
  /** Counts shared by every process when there are several (null: this process's own). */
  redis: Redis | null;
  /** Their keys' prefix in Redis. */
  redisPrefix: string;
}

/**
 * The JSON API's scope, behind the per-client request limit (counted in Redis when there
 * are several processes): `routes` registers its routes in it (app.ts lists them).
 */
export async function registerApi(
  app: FastifyInstance,
  limit: ApiLimit,
  routes: (api: FastifyInstance) => void,
): Promise<void> {
  await app.register(async (api) => {
    await api.register(fastifyRateLimit, {
      max: limit.perMinute,
      timeWindow: 60_000,
      // One count per client for all processes when there are several.
      ...(limit.redis ? { redis: limit.redis, nameSpace: `${limit.redisPrefix}:api-limit:` } : {}),
      errorResponseBuilder: (_req, c) => ({
        statusCode: 429,
        error: 'rate_limited',
        message: `Too many requests. Please retry in ${Math.ceil(c.ttl / 1000)} s.`,
      }),
    });
    routes(api);
  });
}

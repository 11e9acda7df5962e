import { API, type PublicSettings } from '@app/protocol';
import fastifyRateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { registerAdminRoutes } from '../admin/admin-routes.ts';
import { registerAccountDataRoutes } from '../auth/account-data-routes.ts';
import { registerAccountRoutes } from '../auth/account-routes.ts';
import { registerKeyRoutes } from '../auth/key-routes.ts';
import { registerAuthRoutes } from '../auth/routes.ts';
import type { AppContext } from '../context.ts';
import { registerPushRoutes } from '../push/routes.ts';
import { registerExportRoutes } from '../social/export-routes.ts';
import { registerMeRoutes } from '../social/me-routes.ts';
import { publicSettingsOf } from './public-settings.ts';

/** The JSON API under /api, behind the per-client request limit (counted in Redis when there are several processes). */
export async function registerApi(app: FastifyInstance, ctx: AppContext, redis: Redis | null): Promise<void> {
  const { config } = ctx;
  await app.register(async (api) => {
    await api.register(fastifyRateLimit, {
      max: config.rateLimits.apiPerMinute,
      timeWindow: 60_000,
      // One count per client for all processes when there are several.
      ...(redis ? { redis, nameSpace: `${config.redisPrefix}:api-limit:` } : {}),
      errorResponseBuilder: (_req, c) => ({
        statusCode: 429,
        error: 'rate_limited',
        message: `Too many requests. Please retry in ${Math.ceil(c.ttl / 1000)} s.`,
      }),
    });
    registerAuthRoutes(api, ctx);
    registerAccountRoutes(api, ctx);
    registerMeRoutes(api, ctx);
    registerExportRoutes(api, ctx);
    registerKeyRoutes(api, ctx);
    registerAccountDataRoutes(api, ctx);
    registerPushRoutes(api, ctx);
    api.get(API.publicSettings, (): Promise<PublicSettings> => publicSettingsOf(ctx));
    registerAdminRoutes(api, ctx);
  });
}

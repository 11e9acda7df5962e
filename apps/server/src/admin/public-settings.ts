/**
 * What anyone may read of this deployment's settings: GET /api/settings, and the answer to
 * the administrator's PUT (admin-routes.ts).
 */
import { API, type PublicSettings } from '@app/protocol';
import type { FastifyInstance } from 'fastify';
import { kdfParams } from '../auth/credentials.ts';
import type { AppContext } from '../context.ts';
import { E2EE_SINCE_KEY, HELP_LINK_KEY } from '../storage/accounts/admin-store.ts';

export async function publicSettingsOf(ctx: AppContext): Promise<PublicSettings> {
  const [helpLink, since] = await Promise.all([
    ctx.store.getSetting(HELP_LINK_KEY),
    ctx.store.getSetting(E2EE_SINCE_KEY),
  ]);
  return {
    helpLink,
    uploadUrl: ctx.config.uploadUrl,
    kdf: kdfParams(ctx.config),
    e2eeSince: since === null ? null : Number(since),
    attachmentMaxBytes: ctx.config.attachmentMaxBytes,
  };
}

export function registerPublicSettingsRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get(API.publicSettings, (): Promise<PublicSettings> => publicSettingsOf(ctx));
}

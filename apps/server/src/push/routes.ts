/** /api/me/push: this browser's Web Push subscription (one per session). */
import { API, type PushState, pushSubscriptionSchema } from '@app/protocol';
import type { FastifyInstance } from 'fastify';
import { type AppContext, authOf, requireAuth } from '../context.ts';
import { HttpError, parseBody } from '../http/errors.ts';
import { endpointAllowed } from './endpoints.ts';

export function registerPushRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { push } = ctx;
  const auth = requireAuth(ctx);
  const state = async (tokenHash: string): Promise<PushState> => ({
    publicKey: push.publicKey,
    subscribed: await push.store.subscribed(tokenHash),
  });

  app.get(API.push, { preHandler: auth }, async (req) => state(authOf(req).tokenHash));

  app.put(API.push, { preHandler: auth }, async (req): Promise<PushState> => {
    const { user, tokenHash } = authOf(req);
    const sub = parseBody(pushSubscriptionSchema, req.body);
    if (!endpointAllowed(sub.endpoint, ctx.config.pushEndpoints)) {
      throw new HttpError(400, 'invalid_input', 'This push service is not allowed');
    }
    await push.store.subscribe(user.id, tokenHash, sub, Date.now());
    return { publicKey: push.publicKey, subscribed: true };
  });

  app.delete(API.push, { preHandler: auth }, async (req): Promise<PushState> => {
    const { tokenHash } = authOf(req);
    await push.store.unsubscribe(tokenHash);
    return { publicKey: push.publicKey, subscribed: false };
  });
}

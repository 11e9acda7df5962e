/**
 * The signed-in user's sealed account data (docs/e2ee.md, "Account data"): GET the blob and
 * its version; PUT the next version, compare-and-set (409 when another tab or browser wrote
 * first: read again, apply again). The server stores what it cannot open; the browsers
 * check the version against the highest they have seen.
 */
import { ACCOUNT_DATA_MAX, type AccountDataResponse, API, putAccountDataSchema } from '@app/protocol';
import type { FastifyInstance } from 'fastify';
import { type AppContext, authOf, requireAuth } from '../context.ts';
import { HttpError, parseBody } from '../http/errors.ts';
import { AccountDataStore } from '../storage/accounts/account-data-store.ts';

/** The blob as a JSON body, with room for its field names. */
const BODY_LIMIT = ACCOUNT_DATA_MAX + 1024;

export function registerAccountDataRoutes(app: FastifyInstance, ctx: AppContext): void {
  const store = new AccountDataStore(ctx.store.db);
  const auth = requireAuth(ctx);

  app.get(API.accountData, { preHandler: auth }, async (req): Promise<AccountDataResponse> => {
    return store.get(authOf(req).user.id);
  });

  app.put(API.accountData, { preHandler: auth, bodyLimit: BODY_LIMIT }, async (req, reply) => {
    const { user } = authOf(req);
    const input = parseBody(putAccountDataSchema, req.body);
    const updates = await store.put(user.id, input.data, input.version, Date.now());
    if (!updates) throw new HttpError(409, 'conflict', 'Your account data changed in another browser: read it again');
    ctx.realtime.publish(updates);
    return reply.code(204).send();
  });
}

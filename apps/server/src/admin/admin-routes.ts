/**
 * /admin's API. Every route runs requireAdmin (a live, unblocked session of the account
 * whose verified e-mail equals ADMIN_EMAIL); each change is audited and takes effect
 * live: a blocked user's sockets close at once, broadcasts, the help link and verified
 * badges reach every open tab.
 */
import {
  ADMIN_MSG,
  type AdminUser,
  type AdminUsersPage,
  API,
  type AuditPage,
  adminUserFlagsSchema,
  adminUsersQuerySchema,
  auditQuerySchema,
  type Broadcast,
  broadcastInputSchema,
  CLOSE,
  helpLinkInputSchema,
  type PublicSettings,
  userIdSchema,
} from '@app/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { type AppContext, authOf, requireAdmin } from '../context.ts';
import { HttpError, parseBody } from '../http/errors.ts';
import { broadcastItem } from '../storage/social/notification-store.ts';
import { publicSettingsOf } from './public-settings.ts';

const broadcastIdSchema = z.string().regex(/^[A-Za-z0-9]{1,64}$/);

function idParam<S extends z.ZodType>(schema: S, params: unknown, what: string): z.infer<S> {
  const r = schema.safeParse((params as { id?: unknown } | undefined)?.id);
  if (!r.success) throw new HttpError(404, 'not_found', `${what} not found`);
  return r.data;
}

export function registerAdminRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { store, admin, realtime } = ctx;
  const preHandler = requireAdmin(ctx);

  const actorOf = (req: Parameters<typeof authOf>[0]) => {
    const { user } = authOf(req);
    return { id: user.id, username: user.username };
  };

  app.get(API.adminStats, { preHandler }, async () => ({ totalUsers: await store.countUsers() }));

  app.get(API.adminUsers, { preHandler }, async (req): Promise<AdminUsersPage> => {
    const q = parseBody(adminUsersQuerySchema, req.query);
    return admin.users(authOf(req).user.id, q.query, q.after);
  });

  app.patch(`${API.adminUsers}/:id`, { preHandler }, async (req): Promise<{ user: AdminUser }> => {
    const actor = actorOf(req);
    const id = idParam(userIdSchema, req.params, 'User');
    const flags = parseBody(adminUserFlagsSchema, req.body);
    if (id === actor.id && flags.blocked === true) throw new HttpError(403, 'forbidden', ADMIN_MSG.selfBlock);
    if (id === actor.id && flags.verified === false) throw new HttpError(403, 'forbidden', ADMIN_MSG.selfUnverify);
    const r = await admin.setFlags(actor, actor.id, id, flags, Date.now());
    if (!r) throw new HttpError(404, 'not_found', 'User not found');
    // Sessions ended in the transaction: now the open tabs go to /blocked.
    if (r.blocked === true) realtime.closeUser(id, CLOSE.blocked);
    realtime.publish(r.updates);
    if (r.publicUser) realtime.broadcast({ kind: 'peer', user: r.publicUser });
    req.log.info({ admin: actor.id, target: id, flags }, 'admin changed user flags');
    return { user: r.user };
  });

  app.get(
    API.adminBroadcasts,
    { preHandler },
    async (): Promise<{ notifications: Broadcast[] }> => ({
      notifications: await admin.broadcasts(),
    }),
  );

  const push = (b: Broadcast) => realtime.broadcast({ kind: 'notification', notification: broadcastItem(b) });

  app.post(API.adminBroadcasts, { preHandler }, async (req, reply): Promise<{ notification: Broadcast }> => {
    const input = parseBody(broadcastInputSchema, req.body);
    const b = await admin.createBroadcast(actorOf(req), input, Date.now());
    push(b);
    reply.code(201);
    return { notification: b };
  });

  app.put(`${API.adminBroadcasts}/:id`, { preHandler }, async (req): Promise<{ notification: Broadcast }> => {
    const id = idParam(broadcastIdSchema, req.params, 'Notification');
    const input = parseBody(broadcastInputSchema, req.body);
    const b = await admin.updateBroadcast(actorOf(req), id, input, Date.now());
    if (!b) throw new HttpError(404, 'not_found', 'Notification not found');
    push(b);
    return { notification: b };
  });

  app.delete(`${API.adminBroadcasts}/:id`, { preHandler }, async (req, reply) => {
    const id = idParam(broadcastIdSchema, req.params, 'Notification');
    if (!(await admin.deleteBroadcast(actorOf(req), id, Date.now()))) {
      throw new HttpError(404, 'not_found', 'Notification not found');
    }
    realtime.broadcast({ kind: 'notificationRemoved', id });
    return reply.code(204).send();
  });

  app.put(API.adminSettings, { preHandler }, async (req): Promise<PublicSettings> => {
    const { helpLink } = parseBody(helpLinkInputSchema, req.body);
    if (await admin.setHelpLink(actorOf(req), helpLink, Date.now())) {
      realtime.broadcast({ kind: 'settings', helpLink });
    }
    return publicSettingsOf(ctx);
  });

  app.get(API.adminAudit, { preHandler }, async (req): Promise<AuditPage> => {
    const q = parseBody(auditQuerySchema, req.query);
    return admin.auditLog(q.before);
  });
}

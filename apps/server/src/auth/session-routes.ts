/**
 * "Where you're signed in": the account's live sessions, and signing out one of them or
 * every one but the browser asking. A session signed out here ends at once: its sockets
 * close on every process (realtime closeSession / closeUser), as a block's do.
 */
import { createHash } from 'node:crypto';
import { API, CLOSE, SESSIONS_MSG, type SessionInfo, type SessionsResponse, sessionIdSchema } from '@app/protocol';
import type { FastifyInstance } from 'fastify';
import { type AppContext, authOf, requireAuth } from '../context.ts';
import { HttpError } from '../http/errors.ts';
import { describeAgent } from './user-agent.ts';

/** The id a session goes by in the API: derived from its token's hash, which it does not reveal. */
export function publicSessionId(tokenHash: string): string {
  return createHash('sha256').update(`parley-session:${tokenHash}`).digest('base64url').slice(0, 22);
}

export function registerSessionRoutes(app: FastifyInstance, ctx: AppContext): void {
  const auth = requireAuth(ctx);

  app.get(API.sessions, { preHandler: auth }, async (req): Promise<SessionsResponse> => {
    const a = authOf(req);
    const rows = await ctx.store.userSessions(a.user.id, Date.now());
    const sessions: SessionInfo[] = rows.map((r) => ({
      id: publicSessionId(r.tokenHash),
      ...describeAgent(r.userAgent),
      createdAt: r.createdAt,
      lastActiveAt: r.lastUsedAt,
      current: r.tokenHash === a.tokenHash,
    }));
    sessions.sort((x, y) => Number(y.current) - Number(x.current) || y.lastActiveAt - x.lastActiveAt);
    return { sessions };
  });

  app.delete<{ Params: { id: string } }>(`${API.sessions}/:id`, { preHandler: auth }, async (req, reply) => {
    const a = authOf(req);
    const id = sessionIdSchema.safeParse(req.params.id);
    const rows = id.success ? await ctx.store.userSessions(a.user.id, Date.now()) : [];
    const target = rows.find((r) => publicSessionId(r.tokenHash) === id.data);
    if (!target) throw new HttpError(404, 'not_found', SESSIONS_MSG.notFound);
    if (target.tokenHash === a.tokenHash) throw new HttpError(400, 'invalid_input', SESSIONS_MSG.current);
    if (!(await ctx.store.deleteSessionOf(a.user.id, target.tokenHash))) {
      throw new HttpError(404, 'not_found', SESSIONS_MSG.notFound);
    }
    ctx.realtime.closeSession(target.tokenHash);
    req.log.info({ userId: a.user.id }, 'signed out another browser');
    return reply.code(204).send();
  });

  app.delete(API.sessions, { preHandler: auth }, async (req) => {
    const a = authOf(req);
    const ended = await ctx.store.deleteUserSessions(a.user.id, a.tokenHash);
    ctx.realtime.closeUser(a.user.id, CLOSE.sessionEnded, a.tokenHash);
    req.log.info({ userId: a.user.id, ended }, 'signed out every other browser');
    return { ended };
  });
}

/** /account: change e-mail, change password, delete the account. */
import {
  API,
  CLOSE,
  changeEmailRequestSchema,
  changePasswordRequestSchema,
  deleteAccountSchema,
  MSG,
  type UserResponse,
} from '@app/protocol';
import type { FastifyInstance } from 'fastify';
import { type AppContext, authOf, requireAuth, toMe } from '../context.ts';
import { HttpError, parseBody } from '../http/errors.ts';
import { emailChangedMail, passwordChangedMail } from '../mail/templates.ts';
import { TakenError } from '../storage/accounts/users.ts';
import { acceptCredentials } from './credentials.ts';
import { checkAvailable, sendVerification } from './routes.ts';

export function registerAccountRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { store, sessions, config } = ctx;
  const auth = requireAuth(ctx);

  app.post(API.changeEmail, { preHandler: auth }, async (req): Promise<UserResponse> => {
    const { user } = authOf(req);
    const input = parseBody(changeEmailRequestSchema, req.body);
    await ctx.throttle.requirePassword(user, input.auth);
    if (input.newEmail.toLowerCase() === user.email.toLowerCase()) {
      throw new HttpError(400, 'invalid_input', 'That is already your e-mail address');
    }
    try {
      await checkAvailable(ctx, null, input.newEmail);
      await store.changeEmail(user.id, input.newEmail, Date.now());
    } catch (e) {
      if (e instanceof TakenError) throw new HttpError(409, 'email_taken', MSG.emailTaken);
      throw e;
    }
    const updated = await store.userById(user.id);
    if (!updated) throw new HttpError(404, 'not_found', 'Account not found');
    await sendVerification(ctx, updated);
    ctx.mailer.send(emailChangedMail(user.email, user.name, updated.email));
    return { user: toMe(updated, config) };
  });

  app.post(API.changePassword, { preHandler: auth }, async (req, reply): Promise<UserResponse> => {
    const a = authOf(req);
    const input = parseBody(changePasswordRequestSchema, req.body);
    await ctx.throttle.requirePassword(a.user, input.auth);
    // The same keys, re-sealed by the browser under the new password: the history stays.
    const stored = await acceptCredentials(config, input.credentials);
    if (!(await ctx.keys.changePassword(a.user.id, stored, input.bundle, input.bundleVersion, Date.now()))) {
      throw new HttpError(409, 'conflict', 'Your keys changed in another browser. Reload and try again.');
    }
    const passwordHash = stored.authHash;
    // Every session ends, this one included; this browser gets a fresh token. Device
    // cookies are bound to the password: this browser gets a new one.
    await store.deleteUserSessions(a.user.id);
    ctx.realtime.closeUser(a.user.id, CLOSE.sessionEnded);
    await sessions.start(req, reply, a.user.id, a.persistent);
    ctx.devices.remember(reply, { id: a.user.id, passwordHash });
    ctx.mailer.send(passwordChangedMail(a.user.email, a.user.name));
    return { user: toMe(a.user, config) };
  });

  app.delete(API.deleteAccount, { preHandler: auth }, async (req, reply) => {
    const a = authOf(req);
    const input = parseBody(deleteAccountSchema, req.body ?? {});
    if (Date.now() - a.authAt > config.reauthWindowMs) {
      throw new HttpError(403, 'reauth_required', MSG.deleteFailed);
    }
    // For good: the password confirms it, as it does an e-mail or password change.
    await ctx.throttle.requirePassword(a.user, input.auth);
    await store.deleteUser(a.user.id);
    await ctx.attachments.removeOwnedBy(a.user.id);
    ctx.realtime.closeUser(a.user.id, CLOSE.sessionEnded);
    sessions.clearCookie(reply);
    req.log.info({ userId: a.user.id }, 'account deleted');
    return reply.code(204).send();
  });
}

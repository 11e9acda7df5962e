/** Sign-up, sign-in, sign-out, the current session, e-mail verification and password reset. */
import {
  API,
  CLOSE,
  EMAIL_LINK_PATHS,
  forgotPasswordSchema,
  MSG,
  resetPasswordSchema,
  type SessionResponse,
  signInSchema,
  signUpSchema,
  type UserResponse,
  usernameSchema,
  verifyEmailSchema,
} from '@app/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type AppContext, authOf, requireAuth, toMe } from '../context.ts';
import { HttpError, parseBody } from '../http/errors.ts';
import { resetPasswordMail, verifyEmailMail } from '../mail/templates.ts';
import type { LimitResult } from '../security/rate-limiter.ts';
import { TakenError, type User } from '../storage/store.ts';
import { hashSecret, verifySecret } from './passwords.ts';
import { newToken } from './tokens.ts';

const VERIFY_TTL_MS = 24 * 60 * 60 * 1000;
const RESET_TTL_MS = 60 * 60 * 1000;

function tooMany(r: LimitResult): HttpError {
  const minutes = Math.max(1, Math.ceil(r.retryAfterMs / 60_000));
  return new HttpError(
    429,
    'rate_limited',
    `Too many attempts. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
  );
}

export async function sendVerification(ctx: AppContext, user: User, now = Date.now()): Promise<void> {
  const token = newToken();
  await ctx.store.createEmailToken({
    tokenHash: ctx.sessions.hash(token),
    userId: user.id,
    kind: 'verify',
    email: user.email,
    createdAt: now,
    expiresAt: now + VERIFY_TTL_MS,
  });
  const url = `${ctx.config.publicUrl}${EMAIL_LINK_PATHS.verify}?token=${token}`;
  ctx.mailer.send(verifyEmailMail(user.email, user.name, url));
}

/** Resolves what was typed in the sign-in field to an account, or null. */
async function findByLogin(ctx: AppContext, login: string): Promise<User | null> {
  const value = login.trim();
  // '@alice' is a handle; anything else with '@' is an e-mail address (spec section 5).
  const handle = /^@[A-Za-z0-9_]+$/.test(value) ? value.slice(1) : value.includes('@') ? null : value;
  if (handle === null) return ctx.store.userByEmail(value);
  if (!usernameSchema.safeParse(handle).success) return null;
  return ctx.store.userByUsername(handle);
}

/** The per-account sign-in limiter's key: the account when the login resolves, else the login as typed. */
function accountLimitKey(user: User | null, login: string): string {
  return user ? `user:${user.id}` : `login:${login.trim().toLowerCase()}`;
}

function ipOf(req: FastifyRequest): string {
  return req.ip || 'unknown';
}

export function registerAuthRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { store, sessions, limiters, config } = ctx;

  app.get(API.session, async (req, reply): Promise<SessionResponse> => {
    const auth = await sessions.resolve(req);
    if (!auth) return { user: null };
    if (auth.user.blocked) {
      await store.deleteUserSessions(auth.user.id);
      ctx.realtime.closeUser(auth.user.id, CLOSE.blocked);
      sessions.clearCookie(reply);
      throw new HttpError(403, 'blocked', 'This account has been blocked by the administrator');
    }
    return { user: toMe(auth.user, config) };
  });

  app.post(API.signUp, async (req, reply): Promise<UserResponse> => {
    const input = parseBody(signUpSchema, req.body);
    const ipLimit = limiters.signUpIp.check(ipOf(req));
    if (!ipLimit.allowed) throw tooMany(ipLimit);
    if (await store.usernameTaken(input.username)) {
      throw new HttpError(409, 'username_taken', MSG.usernameTaken);
    }
    if (await store.userByEmail(input.email)) {
      throw new HttpError(409, 'email_taken', MSG.emailTaken);
    }
    const passwordHash = await hashSecret(input.password);
    const now = Date.now();
    let user: User;
    try {
      user = await store.createUser({
        username: input.username,
        name: input.name,
        email: input.email,
        phone: input.phone,
        age: input.age,
        passwordHash,
        now,
      });
    } catch (e) {
      if (e instanceof TakenError) {
        throw e.field === 'username'
          ? new HttpError(409, 'username_taken', MSG.usernameTaken)
          : new HttpError(409, 'email_taken', MSG.emailTaken);
      }
      throw e;
    }
    limiters.signUpIp.hit(ipOf(req));
    await sendVerification(ctx, user, now);
    await sessions.start(req, reply, user.id, true, now);
    req.log.info({ userId: user.id }, 'account created');
    reply.code(201);
    return { user: toMe(user, config) };
  });

  app.post(API.signIn, async (req, reply): Promise<UserResponse> => {
    const input = parseBody(signInSchema, req.body);
    const ip = ipOf(req);
    const ipCheck = limiters.signInIp.check(ip);
    if (!ipCheck.allowed) throw tooMany(ipCheck);
    const user = await findByLogin(ctx, input.login);
    // Keyed by the account, so its e-mail, username and '@username' share one counter.
    const accountKey = accountLimitKey(user, input.login);
    const accountCheck = limiters.signInAccount.check(accountKey);
    if (!accountCheck.allowed) throw tooMany(accountCheck);

    const ok = await verifySecret(user?.passwordHash ?? null, input.password);
    if (!user || !ok) {
      limiters.signInIp.hit(ip);
      limiters.signInAccount.hit(accountKey);
      req.log.info({ ip }, 'sign-in failed');
      throw new HttpError(401, 'invalid_credentials', MSG.invalidCredentials);
    }
    limiters.signInAccount.reset(accountKey);
    if (user.blocked) {
      await store.deleteUserSessions(user.id);
      ctx.realtime.closeUser(user.id, CLOSE.blocked);
      throw new HttpError(403, 'blocked', 'This account has been blocked by the administrator');
    }
    // Rotation: a new token at every sign-in; an old cookie of this browser is ended.
    const previous = await sessions.resolve(req);
    if (previous) {
      await store.deleteSession(previous.tokenHash);
      ctx.realtime.closeSession(previous.tokenHash);
    }
    await sessions.start(req, reply, user.id, input.remember);
    return { user: toMe(user, config) };
  });

  app.post(API.signOut, async (req, reply) => {
    const auth = await sessions.resolve(req);
    if (auth) {
      await store.deleteSession(auth.tokenHash);
      ctx.realtime.closeSession(auth.tokenHash);
    }
    sessions.clearCookie(reply);
    return reply.code(204).send();
  });

  app.post(API.verifyEmail, async (req): Promise<SessionResponse> => {
    const { token } = parseBody(verifyEmailSchema, req.body);
    const now = Date.now();
    const t = await store.consumeEmailToken(sessions.hash(token), 'verify', now);
    if (!t || !(await store.setEmailVerified(t.userId, t.email))) {
      throw new HttpError(400, 'invalid_token', MSG.invalidLink);
    }
    const auth = await sessions.resolve(req);
    return { user: auth ? toMe(auth.user, config) : null };
  });

  app.post(API.resendVerification, { preHandler: requireAuth(ctx) }, async (req, reply) => {
    const { user } = authOf(req);
    if (user.emailVerified) return reply.code(204).send();
    const a = limiters.mailAccount.hit(`verify:${user.id}`);
    const i = limiters.mailIp.hit(ipOf(req));
    if (!a.allowed) throw tooMany(a);
    if (!i.allowed) throw tooMany(i);
    await sendVerification(ctx, user);
    return reply.code(204).send();
  });

  app.post(API.forgotPassword, async (req, reply) => {
    const { email } = parseBody(forgotPasswordSchema, req.body);
    const i = limiters.mailIp.hit(ipOf(req));
    if (!i.allowed) throw tooMany(i);
    // Same answer whether or not the account exists; the per-account limit is silent too.
    const user = await store.userByEmail(email);
    if (user && !user.blocked && limiters.mailAccount.hit(`reset:${user.id}`).allowed) {
      const token = newToken();
      const now = Date.now();
      await store.createEmailToken({
        tokenHash: sessions.hash(token),
        userId: user.id,
        kind: 'reset',
        email: user.email,
        createdAt: now,
        expiresAt: now + RESET_TTL_MS,
      });
      ctx.mailer.send(
        resetPasswordMail(user.email, user.name, `${config.publicUrl}${EMAIL_LINK_PATHS.reset}?token=${token}`),
      );
    }
    return reply.code(204).send();
  });

  app.post(API.resetPassword, async (req, reply) => {
    const { token, password } = parseBody(resetPasswordSchema, req.body);
    const now = Date.now();
    const t = await store.consumeEmailToken(sessions.hash(token), 'reset', now);
    const user = t ? await store.userById(t.userId) : null;
    if (!t || !user || user.email.toLowerCase() !== t.email.toLowerCase()) {
      throw new HttpError(400, 'invalid_token', MSG.invalidLink);
    }
    await store.setPasswordHash(user.id, await hashSecret(password));
    await store.deleteUserSessions(user.id);
    ctx.realtime.closeUser(user.id, CLOSE.sessionEnded);
    // Proving control of the mailbox also proves the address.
    if (!user.emailVerified) await store.setEmailVerified(user.id, user.email);
    sessions.clearCookie(reply);
    limiters.signInAccount.reset(accountLimitKey(user, ''));
    return reply.code(204).send();
  });
}

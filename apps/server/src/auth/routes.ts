/** Sign-up, sign-in, sign-out, the current session, e-mail verification and password reset. */
import {
  API,
  CLOSE,
  EMAIL_LINK_PATHS,
  forgotPasswordSchema,
  handleKey,
  MSG,
  resetPasswordRequestSchema,
  type SecondFactorDue,
  type SessionResponse,
  type SignedInResponse,
  signInRequestSchema,
  signUpRequestSchema,
  usernameSchema,
  verifyEmailSchema,
} from '@app/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type AppContext, authOf, requireAuth, toMe } from '../context.ts';
import { HttpError, parseBody } from '../http/errors.ts';
import { resetPasswordMail, verifyEmailMail } from '../mail/templates.ts';
import { type SignInFailureReason, signInRefused } from '../metrics/sign-in.ts';
import { TakenError, type User } from '../storage/accounts/users.ts';
import { warnUnverifiedAdmin } from './admin-address.ts';
import { acceptCredentials, checkKdf, loginKind, signInCredential } from './credentials.ts';
import { verifySecret } from './passwords.ts';
import { newToken } from './tokens.ts';

const VERIFY_TTL_MS = 24 * 60 * 60 * 1000;
const RESET_TTL_MS = 60 * 60 * 1000;

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

/**
 * Throws TakenError unless the handle and the address are free. The administrator's
 * address is free only while no account holds it: whoever holds it becomes the
 * administrator once it is verified by its link (or by the operator's CLI, which asks
 * first), so the operator is told when an unverified account sits on it.
 */
export async function checkAvailable(ctx: AppContext, username: string | null, email: string): Promise<void> {
  if (username !== null && (await ctx.store.usernameTaken(username))) throw new TakenError('username');
  const holder = await ctx.store.userByEmail(email);
  if (!holder) return;
  if (email.trim().toLowerCase() === ctx.config.adminEmail) warnUnverifiedAdmin(ctx.log, holder);
  throw new TakenError('email');
}

/** Resolves what was typed in the sign-in field to an account, or null. */
export async function findByLogin(ctx: AppContext, login: string): Promise<User | null> {
  const value = login.trim();
  if (loginKind(value) === 'email') return ctx.store.userByEmail(value);
  const handle = value.startsWith('@') ? value.slice(1) : value;
  if (!usernameSchema.safeParse(handle).success) return null;
  return ctx.store.userByUsername(handle);
}

/**
 * The sign-in limits' key: the login as typed, normalised (case, a handle's '@'), whether
 * or not an account has it. Keying a known account's e-mail and handle together would
 * tell a stranger which e-mail is which @handle (the two would run out together); each
 * login form therefore has its own budget.
 */
function loginKey(login: string): string {
  return handleKey(login);
}

/** Why a sign-in was refused as invalid_credentials, for the operator's metrics only. */
function wrongSecretReason(user: User | null, legacyPasswords: boolean): SignInFailureReason {
  if (!user) return 'unknown_login';
  return user.authVersion === 0 && !legacyPasswords ? 'legacy_closed' : 'wrong_password';
}

export function ipOf(req: FastifyRequest): string {
  return req.ip || 'unknown';
}

/**
 * Both steps passed (or the only one): a new session (this browser's old one ended: a new
 * token at every sign-in), and the account's sealed keys for the browser to open.
 */
export async function finishSignIn(
  ctx: AppContext,
  req: FastifyRequest,
  reply: FastifyReply,
  user: User,
  login: string,
  remember: boolean,
): Promise<SignedInResponse> {
  const previous = await ctx.sessions.resolve(req);
  if (previous) {
    await ctx.store.deleteSession(previous.tokenHash);
    ctx.realtime.closeSession(previous.tokenHash);
  }
  await ctx.sessions.start(req, reply, user.id, remember);
  ctx.devices.remember(reply, user);
  // An address with a credential of its own is answered with its `wrap`.
  const credential = user.authVersion !== 0 ? signInCredential(login, user, await ctx.keys.kdfOf(user.id)) : null;
  const answer: SignedInResponse = { user: toMe(user, ctx.config), keys: await ctx.keys.ownKeys(user.id) };
  if (credential?.wrap) answer.wrap = credential.wrap;
  if (credential?.shared) answer.sharedSalt = true;
  return answer;
}

export function registerAuthRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { store, sessions, throttle, devices, config } = ctx;
  const rl = config.rateLimits;

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

  app.post(API.signUp, async (req, reply): Promise<SignedInResponse> => {
    const input = parseBody(signUpRequestSchema, req.body);
    checkKdf(config, input.credentials.kdf);
    // Counted before anything is created (or hashed); an attempt refused as taken gives its count back.
    const ipKey = `signup:ip:${ipOf(req)}`;
    await throttle.take(ipKey, rl.signUpPerIp, rl.windowMs * 4);
    let user: User;
    const now = Date.now();
    try {
      await checkAvailable(ctx, input.username, input.email);
      const credentials = await acceptCredentials(config, input.credentials);
      user = await store.createUser({
        username: input.username,
        name: input.name,
        email: input.email,
        phone: input.phone,
        age: input.age,
        passwordHash: credentials.authHash,
        e2ee: { kdf: credentials.kdf, salt: credentials.salt, email: credentials.email },
        now,
      });
    } catch (e) {
      await throttle.giveBack(ipKey);
      if (e instanceof TakenError) {
        throw e.field === 'username'
          ? new HttpError(409, 'username_taken', MSG.usernameTaken)
          : new HttpError(409, 'email_taken', MSG.emailTaken);
      }
      throw e;
    }
    await sendVerification(ctx, user, now);
    await sessions.start(req, reply, user.id, true, now);
    devices.remember(reply, user);
    req.log.info({ userId: user.id }, 'account created');
    reply.code(201);
    return { user: toMe(user, config), keys: null };
  });

  app.post(API.signIn, async (req, reply): Promise<SignedInResponse | { secondFactor: SecondFactorDue }> => {
    const input = parseBody(signInRequestSchema, req.body);
    const ip = ipOf(req);
    const user = await findByLogin(ctx, input.login);
    // Beyond a limit: 429, counted by the metrics as rate_limited (as a 400 is invalid_input).
    const ticket = await throttle.signIn(loginKey(input.login), ip, devices.trusted(req, user));
    // `auth`; the password itself only for an account from before end-to-end encryption,
    // and only while the legacy path is open (LEGACY_PASSWORDS).
    const given = user?.authVersion === 0 ? (ctx.legacyPasswords ? input.password : undefined) : input.auth;
    // An address with a credential of its own is checked against it, and answered with its `wrap`.
    const credential =
      user && user.authVersion !== 0 ? signInCredential(input.login, user, await ctx.keys.kdfOf(user.id)) : null;
    const hash = credential?.hash ?? user?.passwordHash;
    const ok = await verifySecret(hash !== undefined && given !== undefined ? hash : null, given ?? '');
    if (!user || !ok) {
      req.log.info({ ip }, 'sign-in failed');
      // The same answer either way; only the operator's metrics tell the reasons apart.
      signInRefused(req, wrongSecretReason(user, ctx.legacyPasswords));
      throw new HttpError(401, 'invalid_credentials', MSG.invalidCredentials);
    }
    await ticket.succeeded();
    if (user.blocked) {
      signInRefused(req, 'blocked');
      await store.deleteUserSessions(user.id);
      ctx.realtime.closeUser(user.id, CLOSE.blocked);
      throw new HttpError(403, 'blocked', 'This account has been blocked by the administrator');
    }
    // A second step due: no session, no keys until it is passed (two-factor-routes.ts).
    if (await ctx.twoFactor.due(user.id)) {
      return { secondFactor: await ctx.twoFactor.begin(user.id, input.login, input.remember, (t) => sessions.hash(t)) };
    }
    return finishSignIn(ctx, req, reply, user, input.login, input.remember);
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
    await throttle.take(`mail:verify:${user.id}`, rl.mailPerAccount);
    await throttle.take(`mail:ip:${ipOf(req)}`, rl.mailPerIp);
    await sendVerification(ctx, user);
    return reply.code(204).send();
  });

  app.post(API.forgotPassword, async (req, reply) => {
    const { email } = parseBody(forgotPasswordSchema, req.body);
    await throttle.take(`mail:ip:${ipOf(req)}`, rl.mailPerIp);
    // Same answer whether or not the account exists; the per-account limit is silent too.
    const user = await store.userByEmail(email);
    if (user && !user.blocked && (await throttle.allows(`mail:reset:${user.id}`, rl.mailPerAccount))) {
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
    const { token, credentials } = parseBody(resetPasswordRequestSchema, req.body);
    // Weak parameters are refused before the link is used up; `auth` is hashed only for a good link.
    checkKdf(config, credentials.kdf);
    const now = Date.now();
    const t = await store.consumeEmailToken(sessions.hash(token), 'reset', now);
    const user = t ? await store.userById(t.userId) : null;
    if (!t || !user || user.email.toLowerCase() !== t.email.toLowerCase()) {
      throw new HttpError(400, 'invalid_token', MSG.invalidLink);
    }
    const stored = await acceptCredentials(config, credentials);
    // The keys stay sealed by the old password (archived): see KeyStore.resetPassword.
    await ctx.keys.resetPassword(user.id, stored, now);
    await store.deleteUserSessions(user.id);
    ctx.realtime.closeUser(user.id, CLOSE.sessionEnded);
    // Proving control of the mailbox also proves the address.
    if (!user.emailVerified) await store.setEmailVerified(user.id, user.email);
    sessions.clearCookie(reply);
    await throttle.resetAccount([user.email, user.username].map(loginKey));
    return reply.code(204).send();
  });
}

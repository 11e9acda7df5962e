/**
 * Two-step sign-in over HTTP (protocol two-factor.ts; the rules in two-factor.ts):
 * - the second step of a sign-in: a code of the account's app, a passkey's answer to the
 *   pending sign-in's challenge, or a recovery code. Each attempt is counted on the pending
 *   sign-in (5) and on the account (across sign-ins) before it is judged;
 * - setting up an app during a sign-in the operator requires it for (the pending token
 *   stands in for the session the account does not have yet);
 * - the signed-in account's ways: its status, an app set up and confirmed, passkeys added,
 *   and (the password confirming it) a way removed or a new set of recovery codes.
 */
import {
  API,
  passkeyAddSchema,
  pendingEnrolConfirmSchema,
  pendingEnrolSchema,
  secondFactorRequestSchema,
  TWO_FACTOR_MSG,
  type TwoFactorStatus,
  totpConfirmSchema,
  twoFactorConfirmSchema,
} from '@app/protocol';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type AppContext, authOf, requireAuth } from '../context.ts';
import { HttpError, parseBody } from '../http/errors.ts';
import type { Pending } from '../storage/accounts/two-factor-store.ts';
import type { User } from '../storage/accounts/users.ts';
import { finishSignIn } from './routes.ts';

/** Second-step attempts one account gets across its sign-ins, per window. */
const ACCOUNT_ATTEMPTS = 20;

export function registerTwoFactorRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { twoFactor, sessions, store, config } = ctx;
  const auth = { preHandler: requireAuth(ctx) };

  /** The pending sign-in of `token`, its attempt counted; refused when it is over. */
  async function pendingOf(token: string): Promise<{ pending: Pending; user: User }> {
    const pending = await twoFactor.attempt(sessions.hash(token));
    const user = pending && (await store.userById(pending.userId));
    if (!pending || !user || user.blocked) throw new HttpError(401, 'sign_in_expired', TWO_FACTOR_MSG.expired);
    await ctx.throttle.take(`2fa:${user.id}`, ACCOUNT_ATTEMPTS);
    return { pending, user };
  }

  async function finish(req: FastifyRequest, reply: FastifyReply, token: string, user: User, pending: Pending) {
    // Once: of two requests passing at the same moment with one token, one signs in.
    if (!(await twoFactor.store.endPending(sessions.hash(token))))
      throw new HttpError(401, 'sign_in_expired', TWO_FACTOR_MSG.expired);
    req.log.info({ userId: user.id }, 'signed in with a second step');
    return finishSignIn(ctx, req, reply, user, pending.login, pending.remember);
  }

  app.post(API.secondFactor, async (req, reply) => {
    const input = parseBody(secondFactorRequestSchema, req.body);
    const { pending, user } = await pendingOf(input.token);
    if (input.totp !== undefined) {
      if (!(await twoFactor.checkTotp(user.id, input.totp, false)))
        throw new HttpError(401, 'wrong_code', TWO_FACTOR_MSG.badCode);
    } else if (input.recovery !== undefined) {
      if (!(await twoFactor.useRecoveryCode(user.id, input.recovery)))
        throw new HttpError(401, 'wrong_code', TWO_FACTOR_MSG.badRecovery);
    } else if (!(await twoFactor.checkPasskey(pending, input.passkey as unknown as AuthenticationResponseJSON))) {
      throw new HttpError(401, 'wrong_code', TWO_FACTOR_MSG.passkeyFailed);
    }
    return finish(req, reply, input.token, user, pending);
  });

  // ---- setting up an app during a sign-in the operator requires a second step for --------

  /** Only for an account with no way yet, while the operator requires one. */
  async function enrolling(token: string) {
    const p = await pendingOf(token);
    if (!config.require2fa || (await twoFactor.hasWay(p.user.id))) throw new HttpError(403, 'forbidden', 'Not needed');
    return p;
  }

  app.post(API.enrolTotp, async (req) => {
    const { user } = await enrolling(parseBody(pendingEnrolSchema, req.body).token);
    const setup = await twoFactor.startTotp(user.id, user.username);
    if (!setup) throw new HttpError(409, 'conflict', 'An authenticator app is set up already');
    return setup;
  });

  app.post(`${API.enrolTotp}/confirm`, async (req, reply) => {
    const input = parseBody(pendingEnrolConfirmSchema, req.body);
    const { user, pending } = await enrolling(input.token);
    if (!(await twoFactor.checkTotp(user.id, input.code, true)))
      throw new HttpError(401, 'wrong_code', TWO_FACTOR_MSG.badCode);
    const recoveryCodes = await twoFactor.newRecoveryCodes(user.id);
    return { ...(await finish(req, reply, input.token, user, pending)), recoveryCodes };
  });

  // ---- the signed-in account's ways ------------------------------------------------------------

  app.get(API.twoFactor, auth, async (req): Promise<TwoFactorStatus> => {
    const { user } = authOf(req);
    const m = await twoFactor.methods(user.id);
    return {
      totp: m.totp,
      passkeys: m.passkeys.map((p) => ({ id: p.id, name: p.name, createdAt: p.createdAt, lastUsedAt: p.lastUsedAt })),
      recoveryCodesLeft: (await twoFactor.store.recoveryHashes(user.id)).length,
      required: config.require2fa,
    };
  });

  /** The first way set up: a set of recovery codes with it (shown once). */
  async function firstCodes(userId: string, hadOne: boolean): Promise<{ recoveryCodes?: string[] }> {
    return hadOne ? {} : { recoveryCodes: await twoFactor.newRecoveryCodes(userId) };
  }

  app.post(API.twoFactorTotp, auth, async (req) => {
    const { user } = authOf(req);
    const setup = await twoFactor.startTotp(user.id, user.username);
    if (!setup) throw new HttpError(409, 'conflict', 'An authenticator app is set up already: remove it first');
    return setup;
  });

  app.post(`${API.twoFactorTotp}/confirm`, auth, async (req) => {
    const { user } = authOf(req);
    const { code, auth: password } = parseBody(totpConfirmSchema, req.body);
    await ctx.throttle.take(`2fa:${user.id}`, ACCOUNT_ATTEMPTS);
    // A session alone (a stolen cookie) cannot add a way and take the recovery codes.
    await ctx.throttle.requirePassword(user, password);
    const hadOne = await twoFactor.hasWay(user.id);
    if (!(await twoFactor.checkTotp(user.id, code, true)))
      throw new HttpError(400, 'wrong_code', TWO_FACTOR_MSG.badCode);
    return firstCodes(user.id, hadOne);
  });

  app.post(API.passkeyOptions, auth, async (req) => twoFactor.passkeyOptions(authOf(req).user));

  app.post(API.passkeys, auth, async (req) => {
    const { user } = authOf(req);
    const input = parseBody(passkeyAddSchema, req.body);
    await ctx.throttle.requirePassword(user, input.auth);
    const hadOne = await twoFactor.hasWay(user.id);
    if (!(await twoFactor.addPasskey(user.id, input.name, input.response as unknown as RegistrationResponseJSON)))
      throw new HttpError(400, 'passkey_refused', TWO_FACTOR_MSG.passkeyFailed);
    return firstCodes(user.id, hadOne);
  });

  /** The password confirms a removal; the operator's requirement keeps the last way. */
  async function remove(req: FastifyRequest, reply: FastifyReply, way: { totp: true } | { passkey: string }) {
    const { user } = authOf(req);
    await ctx.throttle.requirePassword(user, parseBody(twoFactorConfirmSchema, req.body ?? {}).auth);
    const r = await twoFactor.store.removeWay(user.id, way, config.require2fa);
    if (r === 'none') throw new HttpError(404, 'not_found', 'Not found');
    if (r === 'last') throw new HttpError(409, 'two_factor_required', TWO_FACTOR_MSG.required);
    return reply.code(204).send();
  }

  app.delete(API.twoFactorTotp, auth, (req, reply) => remove(req, reply, { totp: true }));

  app.delete<{ Params: { id: string } }>(`${API.passkeys}/:id`, auth, (req, reply) =>
    remove(req, reply, { passkey: req.params.id }),
  );

  app.post(API.recoveryCodes, auth, async (req) => {
    const { user } = authOf(req);
    await ctx.throttle.requirePassword(user, parseBody(twoFactorConfirmSchema, req.body ?? {}).auth);
    if (!(await twoFactor.hasWay(user.id))) throw new HttpError(409, 'conflict', 'Set up an app or a passkey first');
    return { recoveryCodes: await twoFactor.newRecoveryCodes(user.id) };
  });
}

/**
 * The end-to-end encryption routes of an account (docs/e2ee.md):
 * prelogin (the KDF salt to derive `auth` with), the owner's own sealed keys, putting
 * re-sealed or new keys after a reset, and a legacy account's one-time upgrade.
 */
import {
  API,
  type ArchivedBundle,
  deleteRecoverySchema,
  type OwnKeys,
  type PreloginResponse,
  preloginSchema,
  putEmailLoginSchema,
  putKeysSchema,
  putRecoverySchema,
  upgradeAuthSchema,
} from '@app/protocol';
import type { FastifyInstance } from 'fastify';
import { type AppContext, authOf, requireAuth } from '../context.ts';
import { HttpError, parseBody } from '../http/errors.ts';
import { acceptCredentials, acceptEmailLogin, type KdfMix, preloginAnswer } from './credentials.ts';
import { findByLogin, ipOf } from './routes.ts';

const LEGACY_CLOSED = 'Sign-in with a password from before end-to-end encryption is switched off on this server';

function keysMoved(): HttpError {
  return new HttpError(409, 'conflict', 'Your keys changed in another browser. Reload and try again.');
}

/** How long a process reuses the accounts' KDF mix before counting again. */
const KDF_MIX_MS = 60_000;

export function registerKeyRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { keys, config, throttle } = ctx;
  const auth = requireAuth(ctx);
  let mix: { at: number; value: Promise<KdfMix> } | null = null;
  const kdfMix = (): Promise<KdfMix> => {
    const now = Date.now();
    if (!mix || now - mix.at > KDF_MIX_MS) {
      const value = keys.kdfMix();
      mix = { at: now, value };
      value.catch(() => {
        mix = null;
      });
    }
    return mix.value;
  };
  app.post(API.prelogin, async (req): Promise<PreloginResponse> => {
    const { login } = parseBody(preloginSchema, req.body);
    // Every sign-in asks once; twice the failed sign-ins an address may make is plenty.
    await throttle.take(`prelogin:ip:${ipOf(req)}`, config.rateLimits.signInPerIp * 2);
    const user = await findByLogin(ctx, login);
    // Both asked for either way: an unknown login costs what a real one does.
    const [kdf, accounts] = await Promise.all([user ? keys.kdfOf(user.id) : null, kdfMix()]);
    return preloginAnswer(config, (t) => ctx.sessions.hash(t), login, user, kdf, ctx.legacyPasswords, accounts);
  });

  app.get(API.keys, { preHandler: auth }, async (req): Promise<{ keys: OwnKeys | null }> => {
    return { keys: await keys.ownKeys(authOf(req).user.id) };
  });

  app.get(API.keysArchive, { preHandler: auth }, async (req): Promise<{ archived: ArchivedBundle[] }> => {
    return { archived: await keys.lockedArchive(authOf(req).user.id) };
  });

  app.get(API.keysRecovery, { preHandler: auth }, async (req) => {
    return { recovery: await keys.recovery(authOf(req).user.id) };
  });

  app.put(API.keysRecovery, { preHandler: auth }, async (req, reply) => {
    const { user } = authOf(req);
    const input = parseBody(putRecoverySchema, req.body);
    await throttle.requirePassword(user, input.auth);
    await keys.setRecovery(user.id, input.bundle, Date.now());
    req.log.info({ userId: user.id }, 'recovery key set');
    return reply.code(204).send();
  });

  app.delete(API.keysRecovery, { preHandler: auth }, async (req, reply) => {
    const { user } = authOf(req);
    await throttle.requirePassword(user, parseBody(deleteRecoverySchema, req.body).auth);
    await keys.setRecovery(user.id, null, Date.now());
    req.log.info({ userId: user.id }, 'recovery key removed');
    return reply.code(204).send();
  });

  app.put(API.keys, { preHandler: auth }, async (req): Promise<{ keys: OwnKeys | null }> => {
    const { user } = authOf(req);
    const input = parseBody(putKeysSchema, req.body);
    if (user.authVersion === 0) throw new HttpError(409, 'conflict', 'Set up encryption with your password first');
    // Deleting archived bundles is for good: the password confirms it (a session alone does not).
    if (input.merged) await throttle.requirePassword(user, input.auth ?? '');
    const current = input.keys ? await keys.ownKeys(user.id) : null;
    const next = current && input.bundleVersion === current.bundleVersion + 1;
    if (input.keys && next && input.keys.ukEpoch <= current.publicKeys.ukEpoch) {
      throw new HttpError(400, 'invalid_input', 'A new key epoch must come after the current one');
    }
    if (!(await keys.putKeys(user.id, input, Date.now()))) throw keysMoved();
    req.log.info(
      { userId: user.id, identity: Boolean(input.keys), merged: input.merged?.length ?? 0 },
      'keys replaced',
    );
    return { keys: await keys.ownKeys(user.id) };
  });

  app.put(API.emailLogin, { preHandler: auth }, async (req, reply) => {
    const { user } = authOf(req);
    const input = parseBody(putEmailLoginSchema, req.body);
    if (user.authVersion === 0) throw new HttpError(409, 'conflict', 'Set up encryption with your password first');
    await throttle.requirePassword(user, input.auth);
    const stored = await acceptEmailLogin(input.email);
    if (!(await keys.setEmailLogin(user.id, user.passwordHash, stored))) {
      throw new HttpError(409, 'conflict', 'Your password changed meanwhile. Sign in again.');
    }
    req.log.info({ userId: user.id }, 'e-mail address given its own salt');
    return reply.code(204).send();
  });

  app.post(API.upgradeAuth, { preHandler: auth }, async (req, reply): Promise<{ keys: OwnKeys | null }> => {
    const a = authOf(req);
    const input = parseBody(upgradeAuthSchema, req.body);
    if (a.user.authVersion !== 0) throw keysMoved();
    if (!ctx.legacyPasswords) throw new HttpError(403, 'forbidden', LEGACY_CLOSED);
    await throttle.requirePassword(a.user, input.password);
    const stored = await acceptCredentials(config, input.credentials);
    if (!(await keys.upgrade(a.user.id, stored, input.keys, Date.now()))) throw keysMoved();
    ctx.devices.remember(reply, { id: a.user.id, passwordHash: stored.authHash });
    req.log.info({ userId: a.user.id }, 'legacy account upgraded to end-to-end encryption');
    return { keys: await keys.ownKeys(a.user.id) };
  });
}

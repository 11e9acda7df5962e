/** /profile and /privacy-settings: the profile, privacy settings and the chat PIN. */
import {
  API,
  PIN_FAILURES_MAX,
  PIN_GRANT_MS,
  PIN_LOCKOUT_MS,
  type PinGrantResponse,
  type PrivacyResponse,
  privacySchema,
  profileSchema,
  removePinSchema,
  SOCIAL_MSG,
  setPinSchema,
  type UserResponse,
  verifyPinSchema,
} from '@app/protocol';
import type { FastifyInstance } from 'fastify';
import { hashSecret, verifySecret } from '../auth/passwords.ts';
import { type AppContext, authOf, requireAuth, toMe } from '../context.ts';
import { HttpError, parseBody } from '../http/errors.ts';

export function registerMeRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { store, social, pins, config, realtime } = ctx;
  const auth = requireAuth(ctx);

  async function privacyResponse(userId: string): Promise<PrivacyResponse> {
    const pin = await pins.pinState(userId);
    return {
      privacy: await social.privacy(userId),
      hasPin: pin.hash !== null,
      pinLockedUntil: pin.lockedUntil !== null && pin.lockedUntil > Date.now() ? pin.lockedUntil : null,
    };
  }

  app.put(API.profile, { preHandler: auth }, async (req): Promise<UserResponse> => {
    const { user } = authOf(req);
    const input = parseBody(profileSchema, req.body);
    const r = await social.updateProfile(user.id, input, Date.now());
    if (!r) throw new HttpError(404, 'not_found', 'Account not found');
    realtime.publish(r.updates);
    const updated = await store.userById(user.id);
    if (!updated) throw new HttpError(404, 'not_found', 'Account not found');
    return { user: toMe(updated, config) };
  });

  app.get(API.privacy, { preHandler: auth }, async (req) => privacyResponse(authOf(req).user.id));

  app.put(API.privacy, { preHandler: auth }, async (req): Promise<PrivacyResponse> => {
    const { user } = authOf(req);
    const input = parseBody(privacySchema, req.body);
    const before = await social.privacy(user.id);
    realtime.publish(await social.setPrivacy(user.id, input, Date.now()));
    // Whoever watches this user sees their last-seen time appear or go at once.
    if (before.lastSeen !== input.lastSeen) await realtime.refreshPresence(user.id);
    return privacyResponse(user.id);
  });

  /** Sets a first PIN, or changes the PIN with the account password. */
  app.put(API.pin, { preHandler: auth }, async (req): Promise<PrivacyResponse> => {
    const { user } = authOf(req);
    const input = parseBody(setPinSchema, req.body);
    const pin = await pins.pinState(user.id);
    if (pin.hash !== null) {
      if (!input.auth) throw new HttpError(403, 'wrong_password', SOCIAL_MSG.pinPasswordRequired);
      await ctx.throttle.requirePassword(user, input.auth, 'The password is incorrect');
    }
    realtime.publish(await pins.setPin(user.id, await hashSecret(input.pin), Date.now()));
    return privacyResponse(user.id);
  });

  /** Removes the PIN (with the account password); locked chats are unlocked. */
  app.delete(API.pin, { preHandler: auth }, async (req): Promise<PrivacyResponse> => {
    const { user } = authOf(req);
    const input = parseBody(removePinSchema, req.body);
    const pin = await pins.pinState(user.id);
    if (pin.hash === null) throw new HttpError(400, 'no_pin', SOCIAL_MSG.noPin);
    await ctx.throttle.requirePassword(user, input.auth, 'The password is incorrect');
    realtime.publish(await pins.setPin(user.id, null, Date.now()));
    return privacyResponse(user.id);
  });

  /**
   * Checks the PIN. Each check is reserved before it is judged (so concurrent ones count);
   * the fifth wrong one in a row refuses checks for 15 minutes, and a right one judged
   * after the lock-out began is refused too. Right: this session may open locked chats
   * for PIN_GRANT_MS.
   */
  app.post(API.verifyPin, { preHandler: auth }, async (req): Promise<PinGrantResponse> => {
    const a = authOf(req);
    const input = parseBody(verifyPinSchema, req.body);
    const pin = await pins.pinState(a.user.id);
    if (pin.hash === null) throw new HttpError(400, 'no_pin', SOCIAL_MSG.noPin);
    const locked = (until: number | null) => {
      const e = new HttpError(429, 'pin_locked', SOCIAL_MSG.pinLocked);
      e.retryAt = until ?? Date.now() + PIN_LOCKOUT_MS;
      return e;
    };
    const check = await pins.reservePinCheck(a.user.id, Date.now());
    if (!check.ok) throw locked(check.lockedUntil);
    let right: boolean;
    try {
      right = await verifySecret(pin.hash, input.pin);
    } catch (e) {
      // Not judged after all: the reserved check is given back.
      await pins.pinCheckAbandoned(a.user.id);
      throw e;
    }
    if (!right) {
      const lockedUntil = await pins.pinCheckFailed(a.user.id, check.attempt, Date.now());
      if (lockedUntil !== null) throw locked(lockedUntil);
      const leftCount = PIN_FAILURES_MAX - check.attempt;
      const left = leftCount === 1 ? '1 attempt left' : `${leftCount} attempts left`;
      throw new HttpError(403, 'invalid_pin', `${SOCIAL_MSG.pinInvalid} (${left})`);
    }
    const now = Date.now();
    if (!(await pins.pinCheckPassed(a.user.id, now))) throw locked((await pins.pinState(a.user.id)).lockedUntil);
    const until = now + PIN_GRANT_MS;
    await pins.grantSession(a.tokenHash, until);
    realtime.grantSession(a.tokenHash, until);
    return { until };
  });
}

import { CLOSE, type Me } from '@app/protocol';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { Attachments } from './attachments/attachments.ts';
import type { Devices } from './auth/device.ts';
import type { AuthContext, Sessions } from './auth/session.ts';
import type { Throttle } from './auth/throttle.ts';
import type { TwoFactor } from './auth/two-factor.ts';
import type { Config } from './config.ts';
import { HttpError } from './http/errors.ts';
import type { Mailer } from './mail/mailer.ts';
import type { PushSender } from './push/sender.ts';
import type { Realtime } from './realtime/realtime.ts';
import type { AccountStore } from './storage/accounts/account-store.ts';
import type { AdminStore } from './storage/accounts/admin-store.ts';
import type { KeyStore } from './storage/accounts/key-store.ts';
import type { PinStore } from './storage/accounts/pin-store.ts';
import type { PushStore } from './storage/accounts/push-store.ts';
import type { User } from './storage/accounts/users.ts';
import type { ChatStore } from './storage/messages/chat-store.ts';
import type { NotificationStore } from './storage/social/notification-store.ts';
import type { SocialStore } from './storage/social/social-store.ts';

/** What every route handler needs, built once per server. */
export interface AppContext {
  config: Config;
  store: AccountStore;
  chat: ChatStore;
  social: SocialStore;
  pins: PinStore;
  notices: NotificationStore;
  /** End-to-end encryption: credentials, public keys and sealed bundles. */
  keys: KeyStore;
  /** Two-step sign-in: the account's app, passkeys and recovery codes, and pending sign-ins. */
  twoFactor: TwoFactor;
  /**
   * Whether an account from before end-to-end encryption may sign in with its password
   * itself (LEGACY_PASSWORDS; `auto`: whether there were such accounts at start).
   */
  legacyPasswords: boolean;
  admin: AdminStore;
  realtime: Realtime;
  sessions: Sessions;
  mailer: Mailer;
  /** Attempt limits of the account routes (counted in the store every process shares). */
  throttle: Throttle;
  devices: Devices;
  /** Photos, files and voice messages: their rows and sealed blobs. */
  attachments: Attachments;
  /** Web Push: browsers' subscriptions and the server's VAPID public key. */
  push: { store: PushStore; publicKey: string; sender: PushSender };
  log: FastifyBaseLogger;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
  }
}

export function isAdmin(user: User, config: Config): boolean {
  return user.emailVerified && user.email.toLowerCase() === config.adminEmail;
}

export function toMe(user: User, config: Config): Me {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    email: user.email,
    emailVerified: user.emailVerified,
    phone: user.phone,
    age: user.age,
    profilePic: user.profilePic,
    createdAt: user.createdAt,
    verified: user.verified,
    isAdmin: isAdmin(user, config),
  };
}

/** preHandler: a live session of an account that is not blocked, or 401/403. */
export function requireAuth(ctx: AppContext) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const auth = await ctx.sessions.resolve(req);
    if (!auth) throw new HttpError(401, 'unauthenticated', 'Please sign in to continue');
    if (auth.user.blocked) {
      await ctx.store.deleteUserSessions(auth.user.id);
      ctx.realtime.closeUser(auth.user.id, CLOSE.blocked);
      ctx.sessions.clearCookie(reply);
      throw new HttpError(403, 'blocked', 'This account has been blocked by the administrator');
    }
    req.auth = auth;
  };
}

export function requireAdmin(ctx: AppContext) {
  const auth = requireAuth(ctx);
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    await auth(req, reply);
    if (!req.auth || !isAdmin(req.auth.user, ctx.config)) {
      throw new HttpError(403, 'forbidden', 'Only the administrator can do this');
    }
  };
}

/** The authenticated request's context; only valid after requireAuth ran. */
export function authOf(req: FastifyRequest): AuthContext {
  if (!req.auth) throw new HttpError(401, 'unauthenticated', 'Please sign in to continue');
  return req.auth;
}

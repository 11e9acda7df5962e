/**
 * The HTTP API shared by the web client and the server: its paths and the schema of each
 * answer (the client parses every answer with it).
 */
import { z } from 'zod';

/** The signed-in user's own view of their account. */
export const meSchema = z.object({
  id: z.string(),
  username: z.string(),
  name: z.string(),
  email: z.string(),
  emailVerified: z.boolean(),
  phone: z.string(),
  age: z.number().int(),
  profilePic: z.string().nullable(),
  createdAt: z.number().int(),
  verified: z.boolean(),
  isAdmin: z.boolean(),
});
export type Me = z.infer<typeof meSchema>;

/** GET /api/session, POST /api/auth/verify-email: the user, or null when signed out. */
export const sessionResponseSchema = z.object({ user: meSchema.nullable() });
export type SessionResponse = z.infer<typeof sessionResponseSchema>;

/** Sign-up, sign-in, profile, e-mail and password changes: the account as it is now. */
export const userResponseSchema = z.object({ user: meSchema });
export type UserResponse = z.infer<typeof userResponseSchema>;

/** GET /api/settings (and the admin's PUT of the help link). */
export const publicSettingsSchema = z.object({
  helpLink: z.string().nullable(),
  /** The image-upload site the profile's Upload button opens. */
  uploadUrl: z.string(),
  /** scrypt's parameters for a new password (sign-up, reset, change). */
  kdf: z.object({ alg: z.literal('scrypt'), N: z.number().int(), r: z.number().int(), p: z.number().int() }),
  /**
   * When the newest message sent before end-to-end encryption was sent (ms), or null on a
   * deployment that never had one: chats mark where encryption began.
   */
  e2eeSince: z.number().int().nullable(),
});
export type PublicSettings = z.infer<typeof publicSettingsSchema>;

/** A 204 answer: no body. */
export const noContentSchema = z.null();

export const apiErrorCodeSchema = z.enum([
  'invalid_input',
  'unauthenticated',
  'forbidden',
  'blocked',
  'not_found',
  'username_taken',
  'email_taken',
  'invalid_credentials',
  'wrong_password',
  'reauth_required',
  'invalid_token',
  'rate_limited',
  'payload_too_large',
  'unsupported_media_type',
  'bad_origin',
  'invalid_pin',
  'conflict',
  'pin_locked',
  'no_pin',
  'internal',
]);
export type ApiErrorCode = z.infer<typeof apiErrorCodeSchema>;

export const apiErrorBodySchema = z.object({
  error: apiErrorCodeSchema,
  message: z.string(),
  /** Field-level messages from validation, first one first. */
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  /** When a refused attempt may be tried again (ms), e.g. after too many wrong PINs. */
  retryAt: z.number().optional(),
});
export type ApiErrorBody = z.infer<typeof apiErrorBodySchema>;

export const API = {
  session: '/api/session',
  prelogin: '/api/auth/prelogin',
  signUp: '/api/auth/signup',
  signIn: '/api/auth/signin',
  signOut: '/api/auth/signout',
  verifyEmail: '/api/auth/verify-email',
  resendVerification: '/api/auth/resend-verification',
  forgotPassword: '/api/auth/forgot-password',
  resetPassword: '/api/auth/reset-password',
  changeEmail: '/api/account/email',
  changePassword: '/api/account/password',
  deleteAccount: '/api/account',
  publicSettings: '/api/settings',
  profile: '/api/me/profile',
  privacy: '/api/me/privacy',
  pin: '/api/me/pin',
  /** GET: the account's own keys and sealed bundle. PUT: re-sealed or new keys after a reset. */
  keys: '/api/me/keys',
  /**
   * GET: bundles sealed by a password from before a reset whose identity is not the
   * current one (the history they open is locked until the old password unlocks it).
   */
  keysArchive: '/api/me/keys/archive',
  /**
   * GET: the account's keys sealed under its recovery key (null: none). PUT: a new one
   * (the password confirms it). DELETE: none any more (the password confirms it).
   */
  keysRecovery: '/api/me/keys/recovery',
  /** POST: a legacy account's first keys (the password is sent this one last time). */
  upgradeAuth: '/api/me/upgrade-auth',
  verifyPin: '/api/me/pin/verify',
  /** GET: everything the server holds for the signed-in user, as NDJSON (export.ts). */
  exportData: '/api/me/export',
  /** GET: the VAPID key and whether this browser is subscribed. PUT: subscribe (Web Push). DELETE: unsubscribe. */
  push: '/api/me/push',
  adminStats: '/api/admin/stats',
  /** GET ?query&after: a page of users. PATCH /:id: verify/block flags. */
  adminUsers: '/api/admin/users',
  /** GET: sent broadcasts, newest first. POST: send. PUT /:id: edit (new timestamp). DELETE /:id. */
  adminBroadcasts: '/api/admin/notifications',
  /** PUT: the help link. */
  adminSettings: '/api/admin/settings',
  /** GET ?before: the audit log, newest first. */
  adminAudit: '/api/admin/audit',
} as const;

/** Where links in e-mails land in the web app. */
export const EMAIL_LINK_PATHS = {
  verify: '/verify-email',
  reset: '/reset-password',
} as const;

/**
 * On a reset link (`?token=…&first=1`): the account's first password (an account imported
 * from the original app), so the page says "Set" rather than "Reset". Wording only: the
 * token is an ordinary reset token.
 */
export const FIRST_PASSWORD_PARAM = 'first';

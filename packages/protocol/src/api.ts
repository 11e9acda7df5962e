/**
 * The HTTP API shared by the web client and the server: the schema of each answer (the
 * client parses every answer with it). Its paths are in api-paths.ts.
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
  /** The largest file one may attach (bytes, before sealing). */
  attachmentMaxBytes: z.number().int().nonnegative(),
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
  /** Two-step sign-in: the code, recovery code or passkey did not pass; the pending sign-in is over. */
  'wrong_code',
  'sign_in_expired',
  'passkey_refused',
  /** The operator requires two-step verification: the last way stays. */
  'two_factor_required',
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

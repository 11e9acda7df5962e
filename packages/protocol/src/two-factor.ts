/**
 * Two-step sign-in (issue 32): an authenticator app's codes (TOTP, RFC 6238), passkeys
 * (WebAuthn) and one-time recovery codes, as a per-user option an operator can require
 * (REQUIRE_2FA). The second factor guards the session only: the password still derives the
 * keys, and the server hands the sealed keys over only once both steps are done.
 */
import { z } from 'zod';
import { authSchema } from './keys.ts';

export const TWO_FACTOR_MSG = {
  badCode: 'That code is not right. Check your app and try again.',
  badRecovery: 'That recovery code is not right, or it was used before.',
  expired: 'This sign-in took too long. Start again with your password.',
  required: 'Your administrator requires two-step verification: keep at least one way to sign in.',
  passkeyFailed: 'The passkey could not be checked. Try again, or use another way.',
} as const;

/** How many recovery codes a set holds. */
export const RECOVERY_CODES = 10;

/** The ways a second step can be passed. */
export const secondFactorMethodSchema = z.enum(['totp', 'passkey', 'recovery']);
export type SecondFactorMethod = z.infer<typeof secondFactorMethodSchema>;

/** A code from an authenticator app: 6 digits (spaces ignored). */
export const totpCodeSchema = z
  .string()
  .transform((s) => s.replace(/\s+/g, ''))
  .pipe(z.string().regex(/^\d{6}$/, { error: TWO_FACTOR_MSG.badCode }));

/** A recovery code: two groups of five letters and digits (case and dashes ignored). */
export const recoveryCodeSchema = z
  .string()
  .max(40)
  .transform((s) => s.toLowerCase().replace(/[^a-z0-9]/g, ''))
  .pipe(z.string().regex(/^[a-z0-9]{10}$/, { error: TWO_FACTOR_MSG.badRecovery }));

/** What stands for the first step until the second is done (an opaque, short-lived token). */
export const pendingTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{43}$/, { error: TWO_FACTOR_MSG.expired });

const b64url = (max: number) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]*$/)
    .max(max);

/** A passkey's answer to a registration (WebAuthn's RegistrationResponseJSON, the parts the server reads). */
export const passkeyRegistrationSchema = z.object({
  id: b64url(1024),
  rawId: b64url(1024),
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: b64url(8192),
    attestationObject: b64url(32768),
    transports: z.array(z.string().max(32)).max(10).optional(),
  }),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
});

/** A passkey's answer to a sign-in challenge (WebAuthn's AuthenticationResponseJSON). */
export const passkeyAssertionSchema = z.object({
  id: b64url(1024),
  rawId: b64url(1024),
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: b64url(8192),
    authenticatorData: b64url(8192),
    signature: b64url(8192),
    userHandle: b64url(1024).optional(),
  }),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
});

/** POST /api/auth/signin's answer when a second step is due: no session yet. */
export const secondFactorDueSchema = z.object({
  secondFactor: z.object({
    token: pendingTokenSchema,
    /** What this account can use (none and `enrol`: it must set one up first). */
    methods: z.array(secondFactorMethodSchema),
    /** The operator requires two-step verification and the account has none yet. */
    enrol: z.boolean(),
    /** The challenge for a passkey (PublicKeyCredentialRequestOptionsJSON), when it has one. */
    passkey: z.record(z.string(), z.unknown()).optional(),
  }),
});
export type SecondFactorDue = z.infer<typeof secondFactorDueSchema>['secondFactor'];

/** POST /api/auth/signin/second-factor: exactly one way. */
export const secondFactorRequestSchema = z
  .strictObject({
    token: pendingTokenSchema,
    totp: totpCodeSchema.optional(),
    recovery: recoveryCodeSchema.optional(),
    passkey: passkeyAssertionSchema.optional(),
  })
  .refine((v) => [v.totp, v.recovery, v.passkey].filter((x) => x !== undefined).length === 1, {
    error: 'Give one code or one passkey',
  });

/** POST /api/auth/signin/enrol/totp (start) with the pending token, and its confirmation. */
export const pendingEnrolSchema = z.strictObject({ token: pendingTokenSchema });
export const pendingEnrolConfirmSchema = z.strictObject({ token: pendingTokenSchema, code: totpCodeSchema });

export const passkeyInfoSchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.number(),
  lastUsedAt: z.number().nullable(),
});
export type PasskeyInfo = z.infer<typeof passkeyInfoSchema>;

/** GET /api/me/two-factor. */
export const twoFactorStatusSchema = z.object({
  totp: z.boolean(),
  passkeys: z.array(passkeyInfoSchema),
  recoveryCodesLeft: z.number().int().nonnegative(),
  /** The operator requires it (REQUIRE_2FA): the last way cannot be removed. */
  required: z.boolean(),
});
export type TwoFactorStatus = z.infer<typeof twoFactorStatusSchema>;

/** POST /api/me/two-factor/totp: a new secret to scan, kept until confirmed. */
export const totpSetupSchema = z.object({ secret: z.string(), uri: z.string() });
/** The app's first code; the password's `auth` confirms the new way. */
export const totpConfirmSchema = z.strictObject({ code: totpCodeSchema, auth: authSchema });

/** Recovery codes, shown once (a new set when two-step verification turns on, or on request). */
export const recoveryCodesSchema = z.object({ recoveryCodes: z.array(z.string()).optional() });

export const passkeyNameSchema = z.string().trim().min(1, { error: 'Name the passkey' }).max(60);
/** POST /api/me/two-factor/passkeys. */
export const passkeyAddSchema = z.strictObject({
  name: passkeyNameSchema,
  response: passkeyRegistrationSchema,
  auth: authSchema,
});

/** Removing a way, or a new set of recovery codes: the password's `auth` confirms it. */
export const twoFactorConfirmSchema = z.strictObject({ auth: authSchema });

/**
 * End-to-end encryption on the HTTP API (docs/e2ee.md): the password
 * never reaches the server. The browser asks for the account's KDF salt (`prelogin`),
 * derives `auth` (sent instead of the password) and a wrap key (never sent) that seals the
 * account's key bundle, which the server stores and hands back at sign-in.
 * These are the wire shapes; the forms still validate what people type with the schemas
 * of validation.ts (the 6-character minimum is a rule of the browser now).
 */
import { z } from 'zod';
import { meSchema } from './api.ts';
import { userIdSchema } from './chat.ts';
import { MSG } from './messages.ts';
import { changeEmailSchema, signInSchema, signUpSchema, tokenSchema } from './validation.ts';

const b64url = (min: number, max: number, error = 'Invalid key') =>
  z
    .string({ error })
    .min(min, { error })
    .max(max, { error })
    .regex(/^[A-Za-z0-9_-]*$/, { error });

/** What the browser sends instead of the password: 32 bytes, base64url. */
export const authSchema = b64url(43, 43, MSG.invalidCredentials);
/** A KDF salt: 16 to 64 bytes, base64url. */
export const saltSchema = b64url(22, 86, 'Invalid salt');
/** A 32-byte public key, base64url. */
export const publicKeySchema = b64url(43, 43);
/** An Ed25519 signature, base64url. */
export const signatureSchema = b64url(86, 86, 'Invalid signature');
/**
 * A sealed key bundle: about 150 characters per key epoch and 300 more, so 12,000 holds
 * some 75 epochs and stays well inside the 16 KiB request body limit.
 */
export const sealedBundleSchema = b64url(40, 12_000, 'Invalid key bundle');
const epoch = z.number().int().min(1).max(1_000_000);
/**
 * A bundle version: +1 at each re-seal. Bounded by what the database column holds (a
 * PostgreSQL integer; a larger number made the compare-and-set query fail with a 500) and
 * the bundle's AAD (u32).
 */
const bundleVersion = z
  .number()
  .int()
  .min(1)
  .max(2 ** 31 - 1);
/**
 * The password as typed, sent only by a legacy account (sign-in once, upgrade-auth): the
 * sign-in form's field, under the text policy like every string a client sends (an unpaired
 * surrogate would reach argon2id as U+FFFD, so two passwords would hash alike).
 */
const legacyPassword = signInSchema.shape.password;

/** scrypt's cost parameters (N a power of two). The server refuses weaker ones than its own. */
export const kdfParamsSchema = z.strictObject({
  alg: z.literal('scrypt'),
  N: z
    .number()
    .int()
    .min(2 ** 10)
    .max(2 ** 20)
    .refine((n) => (n & (n - 1)) === 0, { error: 'N must be a power of two' }),
  r: z.number().int().min(1).max(16),
  p: z.number().int().min(1).max(4),
});
export type KdfParamsWire = z.infer<typeof kdfParamsSchema>;

/** POST /api/auth/prelogin. */
export const preloginSchema = z.strictObject({
  /** The sign-in form's login field: the same bounds, and the text policy (no NUL to look up). */
  login: signInSchema.shape.login,
});
/**
 * The account's salt and parameters; an unknown login gets a made-up salt that stays the
 * same for that login, so the answer tells nothing. `legacy` (an account from before
 * end-to-end encryption that has not signed in since) asks for the password itself, once.
 */
export const preloginResponseSchema = z.union([
  z.object({ kdf: kdfParamsSchema, salt: saltSchema }),
  z.object({ kdf: z.object({ alg: z.literal('legacy') }) }),
]);
export type PreloginResponse = z.infer<typeof preloginResponseSchema>;

/** One identity key a user has had: its generation, and since when (the server's clock, ms). */
export const identitySchema = z.strictObject({
  ik: publicKeySchema,
  idVersion: z.number().int().min(1),
  since: z.number().int().nonnegative(),
});
export type IdentityWire = z.infer<typeof identitySchema>;

/** How many earlier identities the server lists (each password reset without the keys adds one). */
export const MAX_IDENTITIES = 50;

/**
 * What anyone may fetch about a user's keys (identity, current encryption key, its
 * certificate), and the identities the user has had, oldest first, the current one last
 * (chat keys made before a reset are signed by an earlier one; a change is shown in chats).
 */
export const publicKeysSchema = z.strictObject({
  userId: userIdSchema,
  ik: publicKeySchema,
  ukEpoch: epoch,
  uk: publicKeySchema,
  ukSig: signatureSchema,
  identities: z.array(identitySchema).min(1).max(MAX_IDENTITIES),
});
export type PublicKeysWire = z.infer<typeof publicKeysSchema>;

/** The public half a browser publishes and the bundle that holds the private half. */
export const newKeysSchema = z.strictObject({
  ik: publicKeySchema,
  ukEpoch: epoch,
  uk: publicKeySchema,
  ukSig: signatureSchema,
  bundle: sealedBundleSchema,
});
export type NewKeys = z.infer<typeof newKeysSchema>;

/**
 * The e-mail address's own credential (docs/e2ee.md, "Two logins, two salts"): `auth` of
 * the password under a salt of its own, and `wrap`, the handle's `auth` and wrap key sealed
 * under its wrap key (AES-GCM, 92 bytes), which an e-mail sign-in hands back to open.
 */
export const emailLoginSchema = z.strictObject({
  auth: authSchema,
  salt: saltSchema,
  wrap: b64url(123, 123),
});
export type EmailLoginWire = z.infer<typeof emailLoginSchema>;

/** The password-derived credentials of an account: the handle's, and the e-mail address's own. */
export const credentialsSchema = z.strictObject({
  auth: authSchema,
  salt: saltSchema,
  kdf: kdfParamsSchema,
  email: emailLoginSchema,
});
export type Credentials = z.infer<typeof credentialsSchema>;

/** The account's keys as its owner gets them (sign-in, GET /api/me/keys). */
export const ownKeysSchema = z.object({
  publicKeys: publicKeysSchema,
  /** Sealed under the wrap key of `kdf`/`salt` (the current password). */
  bundle: sealedBundleSchema,
  bundleVersion: z.number().int().min(1),
  /** Identity generation: +1 at each identity reset. */
  idVersion: z.number().int().min(1),
  /**
   * The bundle is still sealed by a password from before a reset: a browser that holds
   * the keys re-seals them; one that does not starts a new identity.
   */
  stale: z.boolean(),
  kdf: kdfParamsSchema,
  salt: saltSchema,
});
export type OwnKeys = z.infer<typeof ownKeysSchema>;

/** GET and PUT /api/me/keys, POST /api/me/upgrade-auth. */
export const ownKeysResponseSchema = z.object({ keys: ownKeysSchema.nullable() });

/**
 * POST /api/auth/signup: the form's fields and `auth` instead of the password. The keys
 * follow with PUT /api/me/keys once the account has its id (they are bound to it).
 */
export const signUpRequestSchema = signUpSchema.omit({ password: true }).extend({ credentials: credentialsSchema });
export type SignUpRequest = z.infer<typeof signUpRequestSchema>;

/** POST /api/auth/signin: `auth`, or for a legacy account (prelogin said so) the password once. */
export const signInRequestSchema = signInSchema
  .omit({ password: true })
  .extend({ auth: authSchema.optional(), password: legacyPassword.optional() })
  .refine((v) => v.auth !== undefined || v.password !== undefined, { error: MSG.fillAll, path: ['auth'] });
export type SignInRequest = z.input<typeof signInRequestSchema>;

/**
 * Sign-up and sign-in answers: the account and its keys (null: none yet, the browser makes
 * them); after a sign-in with the e-mail address's own credential, its `wrap` to open.
 */
export const signedInResponseSchema = z.object({
  user: meSchema,
  keys: ownKeysSchema.nullable(),
  wrap: emailLoginSchema.shape.wrap.optional(),
  /**
   * The account's address still answers its handle's salt (its password was set before
   * addresses had their own): the browser gives it one (PUT /api/me/email-login).
   */
  sharedSalt: z.literal(true).optional(),
});
export type SignedInResponse = z.infer<typeof signedInResponseSchema>;

/** POST /api/auth/reset-password: new credentials; the keys stay sealed by the old password. */
export const resetPasswordRequestSchema = z.strictObject({ token: tokenSchema, credentials: credentialsSchema });

/** POST /api/account/password: the same keys re-sealed under the new password. */
export const changePasswordRequestSchema = z.strictObject({
  auth: authSchema,
  credentials: credentialsSchema,
  bundle: sealedBundleSchema,
  bundleVersion: bundleVersion.min(2),
});

/** PUT /api/me/email-login: the address's own credential, confirmed by the handle's `auth`. */
export const putEmailLoginSchema = z.strictObject({ auth: authSchema, email: emailLoginSchema });

/** POST /api/account/email. */
export const changeEmailRequestSchema = changeEmailSchema.omit({ currentPassword: true }).extend({ auth: authSchema });

/**
 * PUT /api/me/keys: an account's first keys (`bundleVersion` 1, right after sign-up), or
 * after a reset either the same keys re-sealed under the new password (`keys` absent) or
 * a new identity (`keys` present; the old bundle stays archived).
 */
export const putKeysSchema = z
  .strictObject({
    bundle: sealedBundleSchema,
    bundleVersion,
    keys: newKeysSchema.omit({ bundle: true }).optional(),
    /**
     * Archived bundles (by version) whose keys this bundle now holds too (the old password
     * unlocked them, or a browser that still had them brought them back): deleted with the
     * put, which the current password (`auth`) must confirm.
     */
    merged: z.array(bundleVersion).min(1).max(MAX_IDENTITIES).optional(),
    auth: authSchema.optional(),
  })
  .refine((v) => !v.merged || v.auth, { error: 'Confirm with your password', path: ['auth'] });

/** A bundle sealed by a password from before a reset, with that password's salt (GET /api/me/keys/archive). */
export const archivedBundleSchema = z.strictObject({
  bundleVersion,
  /** The identity generation the bundle was sealed in: it holds that identity's keys and those merged into it. */
  idVersion: z.number().int().min(1),
  bundle: sealedBundleSchema,
  kdf: kdfParamsSchema,
  salt: saltSchema,
});
export type ArchivedBundle = z.infer<typeof archivedBundleSchema>;
export const keysArchiveResponseSchema = z.object({ archived: z.array(archivedBundleSchema).max(MAX_IDENTITIES) });

/** POST /api/me/upgrade-auth: a legacy account's first keys (its session proves the password). */
export const upgradeAuthSchema = z.strictObject({
  password: legacyPassword,
  credentials: credentialsSchema,
  keys: newKeysSchema,
});

/**
 * The account's keys sealed under a recovery key the user wrote down (docs/e2ee.md): it
 * brings back, after a password reset, what the old password would have.
 */
export const recoveryBundleSchema = z.strictObject({ bundle: sealedBundleSchema, createdAt: z.number().int() });
export const recoveryResponseSchema = z.object({ recovery: recoveryBundleSchema.nullable() });
/** PUT /api/me/keys/recovery. */
export const putRecoverySchema = z.strictObject({ auth: authSchema, bundle: sealedBundleSchema });
/** DELETE /api/me/keys/recovery. */
export const deleteRecoverySchema = z.strictObject({ auth: authSchema });
/** DELETE /api/account: the password's `auth` confirms it (a session alone does not). */
export const deleteAccountSchema = z.strictObject({ auth: authSchema });

/**
 * A user's account data sealed under the account's data key (ADK): the identities each
 * peer has had as this user's browsers pinned them, and the verified marks. Up to about
 * 750 KB: many thousands of peers.
 */
export const ACCOUNT_DATA_MAX = 1_000_000;
export const sealedAccountDataSchema = b64url(40, ACCOUNT_DATA_MAX, 'Invalid account data');
const accountDataVersion = z
  .number()
  .int()
  .min(0)
  .max(2 ** 31 - 1);

/** GET /api/me/account-data: the sealed blob and its version (0 and null: none yet). */
export const accountDataResponseSchema = z.object({
  data: sealedAccountDataSchema.nullable(),
  version: accountDataVersion,
});
export type AccountDataResponse = z.infer<typeof accountDataResponseSchema>;

/** PUT /api/me/account-data: the next version, taken only if the stored one is `version - 1`. */
export const putAccountDataSchema = z.strictObject({
  data: sealedAccountDataSchema,
  version: accountDataVersion.min(1),
});

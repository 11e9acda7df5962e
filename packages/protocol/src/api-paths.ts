/**
 * The HTTP API's paths and the web app's e-mail link paths: plain constants, in a module
 * without zod, so the web app's first chunk can import them without evaluating zod (it
 * checks no schema before the first screen; see apps/web/src/lib/api.ts).
 */

export const API = {
  session: '/api/session',
  prelogin: '/api/auth/prelogin',
  signUp: '/api/auth/signup',
  signIn: '/api/auth/signin',
  /** POST: the second step of a sign-in (protocol two-factor.ts): a code, a recovery code or a passkey. */
  secondFactor: '/api/auth/signin/second-factor',
  /** POST: an authenticator app set up during a sign-in the operator requires it for (then `/confirm`). */
  enrolTotp: '/api/auth/signin/enrol/totp',
  /** GET: the account's ways of passing the second step. */
  twoFactor: '/api/me/two-factor',
  /** POST: a new authenticator app secret (then `/confirm`); DELETE: none any more (the password confirms it). */
  twoFactorTotp: '/api/me/two-factor/totp',
  /** POST: a passkey's registration challenge. */
  passkeyOptions: '/api/me/two-factor/passkeys/options',
  /** POST: a new passkey; DELETE `/:id`: that one no more (the password confirms it). */
  passkeys: '/api/me/two-factor/passkeys',
  /** POST: a new set of recovery codes in place of the old (the password confirms it). */
  recoveryCodes: '/api/me/two-factor/recovery-codes',
  signOut: '/api/auth/signout',
  verifyEmail: '/api/auth/verify-email',
  resendVerification: '/api/auth/resend-verification',
  forgotPassword: '/api/auth/forgot-password',
  resetPassword: '/api/auth/reset-password',
  changeEmail: '/api/account/email',
  changePassword: '/api/account/password',
  deleteAccount: '/api/account',
  /**
   * GET: the account's signed-in browsers. DELETE: signs out every one but this one;
   * DELETE `${sessions}/:id`: that one (not this one: that is signOut).
   */
  sessions: '/api/me/sessions',
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
  /**
   * GET: the account data sealed under the account's data key (pins, verified marks).
   * PUT: its next version (compare-and-set); other tabs and browsers hear of it in the log.
   */
  accountData: '/api/me/account-data',
  /** POST: a legacy account's first keys (the password is sent this one last time). */
  upgradeAuth: '/api/me/upgrade-auth',
  /**
   * PUT: the e-mail address's own credential, for an account whose password was set before
   * there was one (sign-in says `sharedSalt`); the password's `auth` confirms it.
   */
  emailLogin: '/api/me/email-login',
  verifyPin: '/api/me/pin/verify',
  /** GET: everything the server holds for the signed-in user, as NDJSON (export.ts). */
  exportData: '/api/me/export',
  /** GET: the VAPID key and whether this browser is subscribed. PUT: subscribe (Web Push). DELETE: unsubscribe. */
  push: '/api/me/push',
  /**
   * The tus endpoint (POST creates, HEAD and PATCH resume; DELETE `/:id` drops an upload
   * not yet in a message). Uploads are sealed blobs (protocol attachments.ts).
   */
  attachmentUploads: '/api/attachments/uploads',
  /** GET `/:id`: a blob, to its uploader and, once in a message, to both people of the chat (ranges allowed). */
  attachments: '/api/attachments',
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
